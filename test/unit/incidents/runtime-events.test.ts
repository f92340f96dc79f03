import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentRuntimeError, runtimeEventSchema, type AgentRuntime, type RuntimeEvent, type Session } from '../../../src/core/agent-runtime';
import { createRuntimeEventMapper, startRuntimeEventFollower } from '../../../src/adapters/agent/runtime-events';
import { silent } from '../../helpers/relay';
import { inMemoryIncidents, manualClock } from './in-memory-incidents';
import { laptopCluster } from '../../../src/core/cluster/laptop';
const { owns } = laptopCluster({ relayTag: 'test' });

const ROOT = 'ses_e023af776ffeFqr1ZTx98GQEDW';
const CHILD = 'ses_e023aedf4ffehHjR82qvLpvXLn';
const recorded: RuntimeEvent[] = (JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/task-run.events.json'), 'utf8')) as unknown[]).map(
  (e) => runtimeEventSchema.parse(e),
);
const ev = (type: string, properties: Record<string, unknown>): RuntimeEvent => ({ type, properties });

/** A runtime that only answers session lookups, from a table; counts them. */
function sessionsTable(parents: Record<string, string | undefined>) {
  const asked: string[] = [];
  const agent: Pick<AgentRuntime, 'getSession'> & { asked: string[]; down?: boolean } = {
    asked,
    async getSession(id): Promise<Session> {
      asked.push(id);
      if (agent.down) throw new AgentRuntimeError('unreachable', 'connect ECONNREFUSED 127.0.0.1:1');
      if (!(id in parents)) throw new AgentRuntimeError('not_found', `Session not found: ${id}`, 404);
      const parentID = parents[id];
      return parentID ? { id, parentID } : { id };
    },
  };
  return agent;
}

function setup(opts: { parents?: Record<string, string | undefined> } = {}) {
  const clock = manualClock();
  const relay = inMemoryIncidents(clock);
  const agent = sessionsTable(opts.parents ?? {});
  const failed: [string, string][] = [];
  const mapper = createRuntimeEventMapper({
    incidents: relay.incidents,
    agent,
    logger: silent,
    clock,
    owns,
    onSessionFailed: (id, message) => failed.push([id, message]),
  });
  /** Timeline entries the mapper wrote (intake and state bookkeeping left out). */
  const progress = (incidentId: string) =>
    relay.incidents
      .timeline(incidentId)
      .filter((e) => !['alert.received', 'state.changed'].includes(e.type))
      .map((e): [string, string] => [e.type, e.message]);
  return { ...relay, agent, mapper, failed, progress };
}

describe('runtime event mapper', () => {
  it('turns a recorded run with a subagent into the incident timeline, once per step, without the prompts', async () => {
    const t = setup();
    const incident = t.running(ROOT);
    // Heartbeats and streaming deltas are mixed in on the wire.
    for (const e of recorded) {
      t.mapper.handle(e);
      t.mapper.handle(ev('server.heartbeat', {}));
    }
    await t.mapper.settled();

    expect(t.progress(incident.incident_id)).toEqual([
      ['agent.started', 'incident-runner started'],
      ['tool.running', 'incident-runner: read running'],
      ['tool.completed', 'incident-runner: read completed'],
      ['agent.started', 'ia-reader started (subagent)'],
      ['tool.running', 'incident-runner: task → ia-reader running'],
      ['tool.running', 'ia-reader: read running'],
      ['tool.completed', 'ia-reader: read completed'],
      ['agent.text', 'reader finished reading'],
      ['tool.completed', 'incident-runner: task → ia-reader completed'],
      ['agent.text', 'Runner summary: all good'],
      ['session.idle', 'incident-runner idle'],
      ['warning', 'agent stopped without reporting an outcome'],
    ]);
    const timeline = t.incidents.timeline(incident.incident_id);
    expect(timeline.find((e) => e.type === 'agent.started' && e.agent === 'ia-reader')).toMatchObject({
      session_id: CHILD,
      subagent: true,
      parent_session_id: ROOT,
    });
    const readDone = timeline.find((e) => e.type === 'tool.completed' && e.tool === 'read' && e.session_id === ROOT);
    expect(readDone?.output).toContain('<path>/project/opencode.json</path>');
    // The prompts (the relay's, and the one the runner gave the subagent) are not the agent's words.
    const said = timeline.filter((e) => e.type === 'agent.text').map((e) => e.message);
    expect(said).toEqual(['reader finished reading', 'Runner summary: all good']);
    // Everything was known from the stream itself.
    expect(t.agent.asked).toEqual([]);
  });

  it('gives no warning at idle when the agent reported an outcome or waits for approval', async () => {
    for (const state of ['resolved', 'awaiting_approval'] as const) {
      const t = setup();
      const incident = t.running(ROOT);
      if (state === 'resolved') t.incidents.transition(incident.incident_id, 'resolve', () => ({ outcome: { kind: 'resolved', summary: 'fixed', at: '2026-11-21T10:05:00.000Z' } }));
      else t.incidents.transition(incident.incident_id, 'request_approval');
      recorded.forEach((e) => t.mapper.handle(e));
      await t.mapper.settled();
      const types = t.progress(incident.incident_id).map(([type]) => type);
      expect(types).toContain('session.idle');
      expect(types).not.toContain('warning');
    }
  });

  it('ignores sessions that are not the relay’s', async () => {
    const t = setup();
    const incident = t.running('ses_someoneelse');
    recorded.forEach((e) => t.mapper.handle(e));
    await t.mapper.settled();
    expect(t.progress(incident.incident_id)).toEqual([]);
    expect(t.agent.asked).toEqual([]);
  });

  it('after a relay restart, resolves a child session it never saw created once and keeps its events in order', async () => {
    const t = setup({ parents: { [CHILD]: ROOT, [ROOT]: undefined } });
    const incident = t.running(ROOT);
    // The new process connects while the subagent is already at work.
    const fromChildWork = recorded.findIndex((e) => e.type === 'session.status' && e.properties.sessionID === CHILD);
    recorded.slice(fromChildWork).forEach((e) => t.mapper.handle(e));
    await t.mapper.settled();

    expect(t.agent.asked).toEqual([CHILD]);
    expect(t.progress(incident.incident_id)).toEqual([
      ['agent.started', 'ia-reader started (subagent)'],
      ['tool.running', 'ia-reader: read running'],
      ['tool.completed', 'ia-reader: read completed'],
      ['agent.text', 'reader finished reading'],
      ['tool.completed', 'incident-runner: task → ia-reader completed'],
      ['agent.started', 'incident-runner started'],
      ['agent.text', 'Runner summary: all good'],
      ['session.idle', 'incident-runner idle'],
      ['warning', 'agent stopped without reporting an outcome'],
    ]);
  });

  it('does not repeat "started" for an agent the timeline already has from before a restart', async () => {
    const t = setup();
    const incident = t.running(ROOT);
    const firstAnswer = recorded.filter((e) => e.type === 'message.updated' && (e.properties.info as { role: string }).role === 'assistant')[0]!;
    createRuntimeEventMapper({ incidents: t.incidents, agent: t.agent, logger: silent, owns }).handle(firstAnswer);
    t.mapper.handle(firstAnswer);
    expect(t.progress(incident.incident_id)).toEqual([['agent.started', 'incident-runner started']]);
  });

  it('skips events of a session it cannot resolve while the runtime is down, and asks again for the next one', async () => {
    const t = setup({ parents: { [CHILD]: ROOT } });
    const incident = t.running(ROOT);
    const text = (id: string, words: string) =>
      ev('message.part.updated', { part: { id, sessionID: CHILD, messageID: 'msg_c', type: 'text', text: words, time: { start: 1, end: 2 } } });
    t.agent.down = true;
    t.mapper.handle(text('prt_1', 'lost while down'));
    await t.mapper.settled();
    expect(t.progress(incident.incident_id)).toEqual([]);

    t.agent.down = false;
    t.mapper.handle(text('prt_2', 'seen after'));
    await t.mapper.settled();
    expect(t.agent.asked).toEqual([CHILD, CHILD]);
    expect(t.progress(incident.incident_id)).toEqual([['agent.text', 'seen after']]);
  });

  it('fails the incident on a root session error, tells the room once, and keeps the error in the timeline', async () => {
    const t = setup();
    const incident = t.running(ROOT);
    const error = ev('session.error', {
      sessionID: ROOT,
      error: { name: 'APIError', data: { message: 'scripted bad request', statusCode: 400, isRetryable: false } },
    });
    t.mapper.handle(error);
    t.mapper.handle(error);
    t.mapper.handle(ev('session.idle', { sessionID: ROOT }));

    const after = t.incidents.get(incident.incident_id)!;
    expect(after.state).toBe('failed');
    expect(after.outcome).toEqual({ kind: 'failed', summary: 'APIError: scripted bad request', at: '2026-11-21T10:00:00.000Z' });
    expect(t.failed).toEqual([[incident.incident_id, 'APIError: scripted bad request']]);
    expect(t.progress(incident.incident_id)).toEqual([
      ['session.error', 'Agent session failed: APIError: scripted bad request'],
      ['session.idle', 'agent idle'],
    ]);
  });

  it('fails the incident when the runtime reports an unknown agent twice and never goes idle', () => {
    const t = setup();
    const incident = t.running(ROOT);
    const message = 'Agent not found: "no-such-agent". Available agents: build, explore';
    t.mapper.handle(ev('session.error', { sessionID: ROOT, error: { name: 'UnknownError', data: { message } } }));
    t.mapper.handle(ev('session.error', { sessionID: ROOT, error: { name: 'UnknownError', data: { message } } }));
    expect(t.incidents.get(incident.incident_id)?.state).toBe('failed');
    expect(t.failed).toHaveLength(1);
    expect(t.progress(incident.incident_id).filter(([type]) => type === 'session.error')).toHaveLength(1);
  });

  it('leaves a finished incident as it is when its session errors afterwards', () => {
    const t = setup();
    const incident = t.running(ROOT);
    t.incidents.transition(incident.incident_id, 'escalate', () => ({ outcome: { kind: 'escalated', summary: 'expired', at: 'x' } }));
    t.mapper.handle(ev('session.error', { sessionID: ROOT, error: { name: 'MessageAbortedError', data: { message: 'Aborted' } } }));
    expect(t.incidents.get(incident.incident_id)).toMatchObject({ state: 'escalated', outcome: { kind: 'escalated' } });
    expect(t.failed).toEqual([]);
    expect(t.progress(incident.incident_id)).toEqual([['session.error', 'Agent session failed: MessageAbortedError: Aborted']]);
  });

  it('records a subagent error in the timeline only; the run goes on', () => {
    const t = setup();
    const incident = t.running(ROOT);
    t.mapper.handle(ev('session.created', { sessionID: CHILD, info: { id: CHILD, parentID: ROOT, agent: 'ia-reader' } }));
    t.mapper.handle(ev('session.error', { sessionID: CHILD, error: { name: 'APIError', data: { message: 'boom' } } }));
    expect(t.incidents.get(incident.incident_id)?.state).toBe('running');
    expect(t.failed).toEqual([]);
    expect(t.progress(incident.incident_id)).toEqual([
      ['agent.started', 'ia-reader started (subagent)'],
      ['session.error', 'ia-reader (subagent) failed: APIError: boom'],
    ]);
  });

  it('shows provider retries once per attempt and tool errors with a capped excerpt', () => {
    const t = setup();
    const incident = t.running(ROOT);
    const retry = (attempt: number) =>
      ev('session.status', { sessionID: ROOT, status: { type: 'retry', attempt, message: 'scripted server error', next: Date.UTC(2026, 10, 21, 10, 0, 2) } });
    t.mapper.handle(retry(1));
    t.mapper.handle(ev('session.status', { sessionID: ROOT, status: { type: 'busy' } }));
    t.mapper.handle(retry(1));
    t.mapper.handle(retry(2));
    const long = `device said no ${'x'.repeat(2000)}`;
    t.mapper.handle(
      ev('message.part.updated', {
        part: {
          id: 'prt_t', sessionID: ROOT, messageID: 'msg_a', type: 'tool', tool: 'device_exec', callID: 'call_9',
          state: { status: 'error', input: { command: 'show ip bgp' }, error: long, time: { start: 1, end: 2 } },
        },
      }),
    );
    const timeline = t.incidents.timeline(incident.incident_id);
    expect(t.progress(incident.incident_id).map(([type, message]) => [type, message.startsWith('agent: device_exec failed: device said no x')])).toEqual([
      ['runtime.retry', false],
      ['runtime.retry', false],
      ['tool.error', true],
    ]);
    expect(t.progress(incident.incident_id).slice(0, 2).map(([, message]) => message)).toEqual([
      'Model provider retry 1: scripted server error',
      'Model provider retry 2: scripted server error',
    ]);
    expect(timeline.find((e) => e.type === 'runtime.retry')?.next_at).toBe('2026-11-21T10:00:02.000Z');
    const failedTool = timeline.find((e) => e.type === 'tool.error')!;
    expect(String(failedTool.error).length).toBeLessThanOrEqual(500);
    expect(failedTool.input).toBe('{"command":"show ip bgp"}');
  });
});

describe('runtime event follower', () => {
  /** A runtime whose event stream the test drives by hand. */
  function drivenStream() {
    let push!: (e: RuntimeEvent) => void;
    let status!: (s: { connected: boolean; error?: string }) => void;
    let signal!: AbortSignal;
    const agent: Pick<AgentRuntime, 'followEvents'> = {
      followEvents(onEvent, opts) {
        push = onEvent;
        status = (s) => opts.onStatus?.(s);
        signal = opts.signal;
        return new Promise<void>((resolve) => opts.signal.addEventListener('abort', () => resolve()));
      },
    };
    return { agent, push: (e: RuntimeEvent) => push(e), status: (s: { connected: boolean; error?: string }) => status(s), aborted: () => signal.aborted };
  }

  it('feeds the mapper, reports connection and last event time, and stops the stream', async () => {
    const clock = manualClock();
    const t = setup();
    const incident = t.running(ROOT);
    const stream = drivenStream();
    const seen: unknown[] = [];
    const follower = startRuntimeEventFollower({ agent: stream.agent, mapper: t.mapper, logger: silent, clock, onStatus: (s) => seen.push(s) });
    expect(follower.status()).toEqual({ connected: false });

    stream.status({ connected: true });
    clock.advance(5_000);
    stream.push(ev('session.idle', { sessionID: ROOT }));
    expect(follower.status()).toEqual({ connected: true, last_event_at: '2026-11-21T10:00:05.000Z' });
    expect(t.progress(incident.incident_id).map(([type]) => type)).toContain('session.idle');

    stream.status({ connected: false, error: 'agent runtime GET /event: stream ended by the runtime' });
    expect(follower.status()).toEqual({
      connected: false,
      last_event_at: '2026-11-21T10:00:05.000Z',
      error: 'agent runtime GET /event: stream ended by the runtime',
    });
    expect(seen).toHaveLength(2);

    await follower.stop();
    expect(stream.aborted()).toBe(true);
  });
});
