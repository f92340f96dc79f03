import { describe, expect, it } from 'vitest';
import type { AgentRuntime, SessionMessage } from '../../../src/core/agent-runtime';
import { createRunReconciler } from '../../../src/adapters/agent/reconcile-runs';
import { createRuntimeEventMapper } from '../../../src/adapters/agent/runtime-events';
import { silent } from '../../helpers/relay';
import { createStubRuntime } from '../../helpers/stub-runtime';
import { inMemoryIncidents, manualClock } from './in-memory-incidents';
import { entries } from '../../../src/core/events/timeline-entries';
import { laptopCluster } from '../../../src/core/cluster/laptop';
const { owns } = laptopCluster({ relayTag: 'test' });

const assistant = (sessionID: string, error?: { name: string; data?: unknown }): SessionMessage => ({
  info: { id: 'msg_a', sessionID, role: 'assistant', time: { created: 1, completed: 2 }, ...(error ? { error } : {}) },
  parts: [{ id: 'prt_a', type: 'text', text: 'done' }],
});

function setUp(sessions: Record<string, { busy?: boolean; messages: SessionMessage[] }>) {
  const clock = manualClock();
  const t = inMemoryIncidents(clock);
  const agent: AgentRuntime = {
    ...createStubRuntime(),
    sessionStatus: async () => Object.fromEntries(Object.entries(sessions).filter(([, s]) => s.busy).map(([id]) => [id, { type: 'busy' }])),
    getMessages: async (id) => sessions[id]?.messages ?? [],
    getSession: async (id) => ({ id }),
  };
  const failed: string[] = [];
  const mapper = createRuntimeEventMapper({ incidents: t.incidents, agent, logger: silent, clock, owns, onSessionFailed: (id) => failed.push(id) });
  const reconcile = createRunReconciler({ incidents: t.incidents, agent, mapper, clock, logger: silent, owns });
  return { ...t, clock, reconcile, mapper, failed };
}

describe('runs whose end the event stream missed', () => {
  it('a session error that happened while disconnected fails the incident and tells the room', async () => {
    const t = setUp({ ses_err: { messages: [assistant('ses_err', { name: 'APIError', data: { message: 'Cannot connect to API' } })] } });
    const inc = t.running('ses_err');
    await t.reconcile();
    await t.mapper.settled();
    expect(t.incidents.get(inc.incident_id)).toMatchObject({ state: 'failed', outcome: { kind: 'failed', summary: expect.stringMatching(/APIError: Cannot connect to API/) } });
    expect(t.failed).toEqual([inc.incident_id]);
  });

  it('a run that went idle without an outcome gets the idle entry and the warning, once', async () => {
    const t = setUp({ ses_idle: { messages: [assistant('ses_idle')] } });
    const inc = t.running('ses_idle');
    await t.reconcile();
    await t.reconcile();
    await t.mapper.settled();
    const types = t.incidents.timeline(inc.incident_id).map((e) => e.type);
    expect(types.filter((x) => x === 'session.idle')).toHaveLength(1);
    expect(types.filter((x) => x === 'warning')).toHaveLength(1);
    expect(t.incidents.get(inc.incident_id)?.state).toBe('running');
  });

  it('leaves busy runs alone, and a prompt that never started a run fails only after a minute', async () => {
    const t = setUp({ ses_busy: { busy: true, messages: [] }, ses_none: { messages: [] } });
    const busy = t.running('ses_busy');
    const none = t.running('ses_none');
    t.incidents.record(none.incident_id, entries.promptSent, 'Prompt sent', { session_id: 'ses_none', agent: 'network-troubleshooter' });
    await t.reconcile();
    await t.mapper.settled();
    expect(t.incidents.get(none.incident_id)?.state).toBe('running');
    t.clock.advance(61_000);
    await t.reconcile();
    await t.mapper.settled();
    expect(t.incidents.get(none.incident_id)?.state).toBe('failed');
    expect(t.incidents.timeline(busy.incident_id).map((e) => e.type)).not.toContain('session.idle');
  });
});
