import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { AgentRuntime } from '../../src/core/agent-runtime';
import { localRelayTag, spareTitle } from '../../src/core/delivery/spare-session';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import { createPersistentStore } from '../../src/core/incidents/persistent-store';
import { ad000002, relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';

/** The test relays' data folder is the default one: the same relay, restarted. */
const SPARE = spareTitle(localRelayTag('.relay-data'));
const on = { AGENT_SPARE_SESSION: 'on' };

/** The stub runtime, with every call it gets written down in order. */
function recordedRuntime() {
  const agent = createStubRuntime();
  const calls: string[] = [];
  for (const name of ['createSession', 'renameSession', 'deleteSession', 'promptAsync'] as const) {
    const real = agent[name].bind(agent) as (...args: unknown[]) => Promise<unknown>;
    (agent as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      calls.push(name);
      return real(...args);
    };
  }
  return { agent, calls };
}

const filesStore = (dir: string) =>
  createPersistentStore({ ...((b) => ({ backend: b.open, archive: b.archive }))(createFileBackends(dir)), timelineDir: join(dir, 'timelines'), retention: 1000, logger: silent });

const post = (relay: Awaited<ReturnType<typeof relayForTest>>, device: string) =>
  relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002({ system: device }) }).then((r) => r.json<{ status: string; incident_id: string; session_id?: string }>());

const titles = (agent: AgentRuntime & { sessions: { title?: string }[] }) => agent.sessions.map((s) => s.title);

describe('a session made ready before the alert', () => {
  it('is what the alert is delivered into: the prompt is the only runtime call on its path; then it is named after the incident and a new one is made ready', async () => {
    const { agent, calls } = recordedRuntime();
    const relay = await relayForTest({ agent, env: on });
    try {
      await vi.waitFor(() => expect(titles(agent)).toEqual([SPARE]));
      const spareId = agent.sessions[0]?.id;
      calls.length = 0;
      const res = await post(relay, 'R1');
      expect(res.status).toBe('accepted');
      expect(relay.incidents.get(res.incident_id)?.session_id).toBe(spareId);
      expect(calls[0]).toBe('promptAsync');
      expect(agent.prompts.map((p) => p.sessionId)).toEqual([spareId]);
      await vi.waitFor(() => expect(titles(agent)).toEqual([`${res.incident_id} AD000002 R1`, SPARE]));
      expect(calls).toEqual(['promptAsync', 'renameSession', 'createSession']);
      // The next alert takes the new one.
      const next = await post(relay, 'R2');
      expect(relay.incidents.get(next.incident_id)?.session_id).toBe(agent.sessions[1]?.id);
    } finally {
      await relay.close();
    }
  });

  it('is removed when the relay stops; an empty one a crash left is taken up at the next start, another relay\'s is left alone', async () => {
    const { agent, calls } = recordedRuntime();
    const first = await relayForTest({ agent, env: on });
    await vi.waitFor(() => expect(titles(agent)).toEqual([SPARE]));
    await first.close();
    expect(agent.sessions).toEqual([]);

    // As a relay killed -9 leaves them (two: a crash during a fill), next to a spare of relay "b" on the same runtime.
    const left = [await agent.createSession({ title: SPARE }), await agent.createSession({ title: SPARE }), await agent.createSession({ title: spareTitle('b') })];
    calls.length = 0;
    const second = await relayForTest({ agent, env: on });
    try {
      await vi.waitFor(() => expect(agent.sessions.map((s) => s.id)).toEqual([left[0]?.id, left[2]?.id]));
      expect(calls).toEqual(['deleteSession']);
      const res = await post(second, 'R1');
      expect(sessionOf(second, res.incident_id)).toBe(left[0]?.id);
    } finally {
      await second.close();
    }
  });

  it('prompted before a crash that lost the delivery: the restarted relay finds it by its prompt and does not prompt again', async () => {
    const dir = tempDir('spare-crash-');
    const agent = createStubRuntime();
    // The runtime is down at the alert: the incident is queued with its prompt recorded.
    agent.setDown();
    const first = await relayForTest({ agent, env: on, store: filesStore(dir) });
    const res = await post(first, 'R1');
    expect(res.status).toBe('queued');
    const prompt = first.incidents.promptText(res.incident_id) as string;
    await first.close();
    // What the crash left: the spare got the prompt, the incident still says queued with no session.
    agent.setUp();
    const spare = await agent.createSession({ title: SPARE });
    await agent.promptAsync(spare.id, { agent: 'network-troubleshooter', text: prompt });

    const second = await relayForTest({ agent, env: on, store: filesStore(dir) });
    try {
      await vi.waitFor(() => expect(second.incidents.get(res.incident_id)?.state).toBe('running'));
      expect(second.incidents.get(res.incident_id)?.session_id).toBe(spare.id);
      expect(agent.prompts.filter((p) => p.sessionId === spare.id)).toHaveLength(1);
      const sent = second.incidents.timeline(res.incident_id).filter((e) => e.type === 'prompt.sent');
      expect(sent.at(-1)).toMatchObject({ session_id: spare.id, sent_before_restart: true });
      await vi.waitFor(() => expect(agent.sessions.find((s) => s.id === spare.id)?.title).toBe(`${res.incident_id} AD000002 R1`));
    } finally {
      await second.close();
    }
  });
});

function sessionOf(r: Awaited<ReturnType<typeof relayForTest>>, id: string) {
  return r.incidents.get(id)?.session_id;
}
