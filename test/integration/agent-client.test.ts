import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentClient, type AgentClient } from '../../src/adapters/agent/client';
import type { RuntimeEvent } from '../../src/core/agent-runtime';
import {
  finishingScript,
  scriptedProviderConfig,
  startScriptedModel,
  textOf,
  toolNames,
  type ScriptedModel,
} from '../fakes/scripted-model';
import { repoRoot, startOpencode, type OpencodeHarness } from '../helpers/opencode';
import { runtimeFailure } from '../helpers/runtime-failure';

// One real opencode server (and one scripted model) for the whole file.
let model: ScriptedModel;
let oc: OpencodeHarness;
let client: AgentClient;

beforeAll(async () => {
  // A prompt containing CALL:read makes the model read an artifact once; everything else just finishes.
  model = await startScriptedModel((request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'user' && textOf(last).includes('CALL:read') && toolNames(request).includes('read')) {
      return { toolCalls: [{ name: 'read', arguments: { filePath: path.join(repoRoot, 'intelligence-artifacts/AD000002/FS.yaml') } }] };
    }
    return finishingScript(request);
  });
  oc = await startOpencode({ configContent: scriptedProviderConfig(model.baseURL) });
  client = createAgentClient(oc.endpoint, { reconnectDelay: () => 100 });
});
afterAll(async () => {
  await client?.close();
  await oc?.stop();
  await model?.stop();
});

const pinnedVersion = (
  JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/opencode-ai/package.json'), 'utf8')) as { version: string }
).version;

/** Follows the event stream until `until` picks an event; resolves with everything seen so far. */
function collectEvents(until: (e: RuntimeEvent) => boolean) {
  const ac = new AbortController();
  const seen: RuntimeEvent[] = [];
  let onConnected!: () => void;
  const connected = new Promise<void>((r) => (onConnected = r));
  const done = new Promise<RuntimeEvent[]>((resolve) => {
    void client.followEvents(
      (e) => {
        seen.push(e);
        if (until(e)) {
          ac.abort();
          resolve(seen);
        }
      },
      { signal: ac.signal, onStatus: (s) => s.connected && onConnected() },
    );
  });
  return { connected, done, stop: () => ac.abort() };
}

const terminalFor = (sessionId: () => string | undefined) => (e: RuntimeEvent) =>
  (e.type === 'session.idle' || e.type === 'session.error') && e.properties.sessionID === sessionId();

describe('agent runtime client against real opencode', () => {
  it('reads health with the runtime version', async () => {
    await expect(client.health()).resolves.toMatchObject({ healthy: true, version: pinnedVersion });
  });

  it('creates a session whose title reads back, and lists it', async () => {
    const title = 'INC-20260101T000000Z AD000002 edge-rtr-01';
    const created = await client.createSession({ title });
    expect(created.id).toMatch(/^ses/);
    await expect(client.getSession(created.id)).resolves.toMatchObject({ id: created.id, title });
    expect((await client.listSessions()).map((s) => s.id)).toContain(created.id);
  });

  it('renames a session (a spare named after its incident) and removes one', async () => {
    const spare = await client.createSession({ title: 'Fault Relay: ready for the next alert (t)' });
    await client.renameSession(spare.id, 'INC-20260101T000001Z AD000002 edge-rtr-01');
    await expect(client.getSession(spare.id)).resolves.toMatchObject({ title: 'INC-20260101T000001Z AD000002 edge-rtr-01' });
    await client.deleteSession(spare.id);
    await expect(client.getSession(spare.id)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await client.listSessions()).map((s) => s.id)).not.toContain(spare.id);
  });

  it('prompts a session with the network-troubleshooter agent; the run finishes and the first user message carries text and agent', async () => {
    const target: { id?: string } = {};
    const events = collectEvents(terminalFor(() => target.id));
    await events.connected;
    const session = await client.createSession({ title: 'INC-prompt AD000002 edge-rtr-01' });
    target.id = session.id;
    const text = 'Troubleshoot this alert:\n{"alert_def_id":"AD000002","device_hostname":"edge-rtr-01"}';
    await client.promptAsync(session.id, { agent: 'network-troubleshooter', text });

    const seen = await events.done;
    const mine = seen.filter((e) => e.properties.sessionID === session.id).map((e) => e.type);
    expect(mine).toContain('session.created');
    expect(mine).toContain('session.idle');
    expect(mine).not.toContain('session.error');

    const messages = await client.getMessages(session.id);
    const first = messages[0]!;
    expect(first.info).toMatchObject({ role: 'user', agent: 'network-troubleshooter' });
    expect(first.parts.find((p) => p.type === 'text')?.text).toBe(text);
    const reply = messages.find((m) => m.info.role === 'assistant');
    expect(reply?.parts.find((p) => p.type === 'text')?.text).toBe('Hello from scripted model');
    // The model was prompted with the agent's own instructions from .opencode/agent/.
    const system = model.requests().map((r) => textOf(r.messages.find((m) => m.role === 'system')));
    expect(system.some((s) => s.includes('You are the network troubleshooter'))).toBe(true);
  });

  it('follows a run in which the agent calls a tool: tool part completed, then the final answer', async () => {
    const target: { id?: string } = {};
    const events = collectEvents(terminalFor(() => target.id));
    await events.connected;
    const session = await client.createSession({ title: 'INC-tool AD000002 edge-rtr-01' });
    target.id = session.id;
    // ia-reader is the agent allowed to read artifacts (a subagent name is accepted directly).
    await client.promptAsync(session.id, { agent: 'ia-reader', text: 'CALL:read please' });

    const seen = (await events.done).filter((e) => e.properties.sessionID === session.id);
    const toolStates = seen
      .filter((e) => e.type === 'message.part.updated')
      .map((e) => e.properties.part as { type: string; tool?: string; state?: { status: string } })
      .filter((p) => p.type === 'tool' && p.tool === 'read')
      .map((p) => p.state?.status);
    expect(toolStates.at(-1)).toBe('completed');
    expect(seen.at(-1)?.type).toBe('session.idle');

    const messages = await client.getMessages(session.id);
    const answers = messages.flatMap((m) => m.parts).filter((p) => p.type === 'text' && p.text?.startsWith('TOOL_RESULT_SEEN'));
    expect(answers).toHaveLength(1);
  });

  it('says not_found for a session the runtime does not know', async () => {
    expect((await runtimeFailure(client.getSession('ses_doesnotexist'))).kind).toBe('not_found');
    expect((await runtimeFailure(client.promptAsync('ses_doesnotexist', { text: 'x' }))).kind).toBe('not_found');
  });

  it('rejects a wrong password as auth, never showing the password', async () => {
    const password = `wrong-${oc.endpoint.password.slice(0, 6)}-pw`;
    const wrong = createAgentClient({ ...oc.endpoint, password });
    for (const call of [wrong.health(), wrong.createSession({ title: 't' })]) {
      const e = await runtimeFailure(call);
      expect(e.kind).toBe('auth');
      expect(e.status).toBe(401);
      const shown = `${e.message}\n${e.stack}\n${JSON.stringify(e)}\n${String(e)}`;
      expect(shown).not.toContain(password);
      expect(shown).not.toContain(Buffer.from(`opencode:${password}`).toString('base64'));
      expect(shown).not.toContain(oc.endpoint.password);
    }
    await wrong.close();
  });

  // Last: it stops and restarts the shared server.
  it('reports a stopped runtime as unreachable and picks the event stream up again after it restarts on the same URL', async () => {
    const ac = new AbortController();
    const statuses: { connected: boolean; error?: string }[] = [];
    const waiters = new Set<{ want: boolean; resolve: () => void }>();
    const status = (want: boolean) =>
      new Promise<void>((resolve) => {
        const waiter = { want, resolve: () => (waiters.delete(waiter), resolve()) };
        waiters.add(waiter);
      });
    const createdIds = new Set<string>();
    let onCreated = () => {};
    const connected = status(true);
    const following = client.followEvents(
      (e) => {
        if (e.type !== 'session.created') return;
        createdIds.add(String(e.properties.sessionID));
        onCreated();
      },
      {
        signal: ac.signal,
        onStatus: (s) => {
          statuses.push(s);
          for (const w of [...waiters]) if (w.want === s.connected) w.resolve();
        },
      },
    );
    await connected;

    const down = status(false);
    await oc.stop();
    await down;
    const e = await runtimeFailure(client.health());
    expect(e).toMatchObject({ kind: 'unreachable', retryable: true });

    const up = status(true);
    await oc.start();
    await up;
    const created = new Promise<void>((resolve) => (onCreated = () => createdIds.has(afterRestart) && resolve()));
    const afterRestart = (await client.createSession({ title: 'after restart' })).id;
    onCreated();
    await created;
    ac.abort();
    await following;
    expect(statuses.filter((s) => s.connected).length).toBeGreaterThanOrEqual(2);
  });
});
