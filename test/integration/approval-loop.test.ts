import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient } from '../../src/adapters/agent/client';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { startHeadlessRelay, type RunningRelay } from '../../src/relay/start-headless';
import { newRoomId, startWebexFake, type WebexFake } from '../fakes/webex';
import { captureLogger } from '../helpers/capture-logger';
import { connectMcp } from '../helpers/mcp-client';
import { startOpencode, waitUntil, type OpencodeHarness, observerClient } from '../helpers/opencode';
import { scriptedProviderConfig, startScriptedModel, type ScriptedModel } from '../fakes/scripted-model';
let model: ScriptedModel | undefined;
import { createManualClock } from '../unit/messaging/helpers';
import type { OperatorChannel } from '../../src/core/approvals/operator-channel';

/** Whether the relay's Webex channel holds its websocket now. */
const webexConnected = (r: { channels: readonly OperatorChannel[] }) => r.channels.find((c) => c.name === 'webex')?.connection?.health().connected;

const TOKEN = 'bot-token-abc123';
const TOOLS = 'tools-token-xyz789';
const ROOM = newRoomId();
const COMMANDS = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];

let fake: WebexFake;
let runtime: OpencodeHarness;
let client: AgentClient;
let running: RunningRelay;
let mcp: Awaited<ReturnType<typeof connectMcp>>;
const clock = createManualClock(Date.now());
const log = captureLogger();
const dataDir = mkdtempSync(join(tmpdir(), 'approval-loop-'));

beforeAll(async () => {
  fake = await startWebexFake({ token: TOKEN, roomId: ROOM });
  for (const email of ['alice@example.net', 'bob@example.net', 'mallory@example.net']) fake.addPerson({ email });
  model = await startScriptedModel();
  runtime = await startOpencode({ configContent: scriptedProviderConfig(model.baseURL) });
  client = observerClient(runtime.endpoint);
  running = await startHeadlessRelay({
    env: {
      AGENT_URL: runtime.endpoint.url,
      AGENT_SERVER_USERNAME: runtime.endpoint.username,
      AGENT_SERVER_PASSWORD: runtime.endpoint.password,
      MSG_BOT_TOKEN: TOKEN,
      MSG_ROOM_ID: ROOM,
      MSG_U2C_URL: fake.u2cUrl,
      MSG_API_URL: fake.apiUrl,
      MSG_APPROVERS: 'alice@example.net, bob@example.net',
      RELAY_TOOLS_TOKEN: TOOLS,
      RELAY_DATA_DIR: dataDir,
      RELAY_LOG_DIR: join(dataDir, 'logs'),
      APPROVAL_TTL: '30m',
      MAX_ACTIVE_RUNS: '20',
    },
    logger: log.logger,
    port: 0,
    clock,
  });
  await fake.until(() => webexConnected(running) === true);
  mcp = await connectMcp(`${running.url}/mcp`, TOOLS);
});

afterAll(async () => {
  await mcp?.close();
  await running?.stop();
  await client?.close();
  await runtime?.stop();
  await model?.stop();
  await fake?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function openIncident(device: string) {
  const res = await request(`${running.url}/fault-alert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(buildSplunkAlert({ device })),
  });
  const body = (await res.body.json()) as { incident_id: string; session_id: string | null; status: string };
  // On a loaded machine the runtime may take the prompt after the intake stopped waiting: the alert
  // is then answered queued and delivered right after; the run is the same either way.
  expect(['accepted', 'queued']).toContain(body.status);
  const relay = running.relay;
  await new Promise<void>((resolve) => {
    const check = () => {
      if (!relay.incidents.get(body.incident_id)?.session_id) return;
      off();
      resolve();
    };
    const off = relay.bus.subscribeAll(check);
    check();
  });
  return { incident_id: body.incident_id, session_id: relay.incidents.get(body.incident_id)?.session_id as string };
}

async function requestApproval(incidentId: string, device: string) {
  const before = fake.postedMessages(ROOM).length;
  const result = await mcp.call('request_approval', { incident_id: incidentId, summary: `Neighbor 10.0.0.2 on ${device} is admin down`, device, commands: COMMANDS, rollback: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'] });
  expect(result.isError, result.text).toBe(false);
  expect(result.json?.status).toBe('pending');
  await fake.until(() => fake.postedMessages(ROOM).length > before);
  const card = fake.postedMessages(ROOM).slice(before).find((m) => m.attachments?.length);
  expect(card).toBeDefined();
  return card!;
}

const roomTexts = () => fake.postedMessages(ROOM).map((m) => m.markdown ?? m.text ?? '');
const awaitRoomText = (pattern: RegExp) => fake.until(() => roomTexts().some((t) => pattern.test(t)));

/** User messages of the session whose text matches, once opencode has them. */
async function userMessages(sessionId: string, pattern: RegExp) {
  const messages = await client.getMessages(sessionId);
  return messages.filter((m) => m.info.role === 'user' && m.parts.some((p) => pattern.test(p.text ?? '')));
}
const awaitUserMessage = (sessionId: string, pattern: RegExp) =>
  // A hang guard, not a speed bar: on a loaded machine opencode takes a while to store the message.
  waitUntil(async () => (await userMessages(sessionId, pattern)).length > 0, `a user message matching ${pattern}`, { timeoutMs: 60_000 });

const incidentState = async (id: string) => ((await (await request(`${running.url}/sessions/${id}`)).body.json()) as { state: string; approval: unknown; approval_request: { request_id: string }; timeline: { type: string; message: string }[] });

describe('approval loop: Webex card → relay → real opencode session', () => {
  it('APPROVED: card with the right data, acknowledgement, and the session told exactly what to apply', async () => {
    const { incident_id, session_id } = await openIncident('R1');
    const card = await requestApproval(incident_id, 'R1');
    const content = card.attachments?.[0]?.content as { version: string; actions: { title: string; data: Record<string, string> }[] };
    expect(content.version).toBe('1.3');
    // The buttons name the request the card shows: a click decides that request or nothing.
    const request_id = (await incidentState(incident_id)).approval_request.request_id;
    expect(request_id).toMatch(/^REQ-/);
    expect(content.actions.map((a) => a.data)).toEqual([
      { callback_keyword: 'fault_approval', alert_def_id: 'AD000002', incident_id, request_id, decision: 'APPROVED' },
      { callback_keyword: 'fault_approval', alert_def_id: 'AD000002', incident_id, request_id, decision: 'DENIED' },
    ]);
    expect((await incidentState(incident_id)).state).toBe('awaiting_approval');

    fake.clickCardButton({ messageId: card.id, title: 'Approve', personEmail: 'alice@example.net', inputs: { reason: 'change window open' } });
    await awaitRoomText(new RegExp(`${incident_id}.*APPROVED by alice@example.net`));
    await awaitUserMessage(session_id, /HUMAN OPERATOR RESPONSE: APPROVED/);
    const [told] = await userMessages(session_id, /HUMAN OPERATOR RESPONSE/);
    // Addressed to the run's agent: without one, opencode answers with its default agent.
    expect(told?.info.agent).toBe('network-troubleshooter');
    const body = JSON.parse((told?.parts.find((p) => p.text)?.text ?? '').replace(/^[^\n]*\n/, ''));
    expect(body).toMatchObject({ incident_id, decision: 'APPROVED', decided_by: 'alice@example.net', channel: 'webex', reason: 'change window open', approved_commands: COMMANDS });

    // A second click changes nothing and says who decided.
    fake.clickCardButton({ messageId: card.id, title: 'Deny', personEmail: 'bob@example.net' });
    await awaitRoomText(new RegExp(`bob@example.net.*${incident_id}.*already APPROVED by alice@example.net`));
    expect(await userMessages(session_id, /DENIED/)).toHaveLength(0);
    // The relay marks the run running once the runtime has taken the prompt (its answer may come after the message shows).
    await waitUntil(async () => {
      const st = await incidentState(incident_id);
      // On a loaded machine the runtime may answer the prompt after the relay's header timeout: the
      // relay retries on its (manual) clock, so move it along, a second per look. One 30 s jump
      // would also fire the Webex ping and its 14 s pong deadline with no chance for the pong to
      // arrive in between, and drop the room's socket for the tests after this one.
      if (st.timeline.some((e) => e.type === 'approval.forward_failed')) clock.advance(1_000);
      return st.state === 'running';
    }, 'the run is running again', { timeoutMs: 120_000 });
    expect((await incidentState(incident_id)).approval).toMatchObject({ decision: 'APPROVED', by: 'alice@example.net' });
  });

  it('DENIED: the session is told to apply nothing', async () => {
    const { incident_id, session_id } = await openIncident('R2');
    const card = await requestApproval(incident_id, 'R2');
    fake.clickCardButton({ messageId: card.id, title: 'Deny', personEmail: 'bob@example.net' });
    await awaitRoomText(new RegExp(`${incident_id}.*DENIED by bob@example.net`));
    await awaitUserMessage(session_id, /HUMAN OPERATOR RESPONSE: DENIED/);
    const [told] = await userMessages(session_id, /HUMAN OPERATOR RESPONSE/);
    expect(told?.parts.find((p) => p.text)?.text).toContain('"approved_commands": []');
  });

  it('refuses clicks from another room or from a person not allowed; nothing resumes', async () => {
    const { incident_id, session_id } = await openIncident('R3');
    const card = await requestApproval(incident_id, 'R3');
    const otherRoom = fake.addRoom();
    fake.clickCardButton({ messageId: card.id, title: 'Approve', personEmail: 'alice@example.net', roomId: otherRoom });
    await awaitRoomText(/came from another room and was refused/);
    fake.clickCardButton({ messageId: card.id, title: 'Approve', personEmail: 'mallory@example.net' });
    await awaitRoomText(/mallory@example.net is not allowed/);
    expect((await incidentState(incident_id)).state).toBe('awaiting_approval');
    expect(await userMessages(session_id, /HUMAN OPERATOR RESPONSE/)).toHaveLength(0);
  });

  it('answers "no active incident" for a decision about an incident that is not waiting', async () => {
    const anyMessage = fake.postedMessages(ROOM)[0]!;
    fake.submitCard({
      messageId: anyMessage.id,
      personEmail: 'alice@example.net',
      inputs: { callback_keyword: 'fault_approval', alert_def_id: 'AD000002', incident_id: 'INC-19990101T000000Z', decision: 'APPROVED' },
    });
    await awaitRoomText(/no active incident is awaiting approval for INC-19990101T000000Z/);
  });

  it('a websocket drop mid-run: the bot reconnects and a later click still resumes the session', async () => {
    const { incident_id, session_id } = await openIncident('R4');
    const card = await requestApproval(incident_id, 'R4');
    const before = fake.connections().length;
    fake.dropSocket(1000, 'idle');
    // Reconnect backoff runs on the injected clock: move it until the bot is back.
    for (let i = 0; i < 120 && !(fake.connections().length > before && webexConnected(running)); i++) {
      clock.advance(1000);
      await new Promise((r) => setImmediate(r));
    }
    await fake.until(() => fake.connections().length > before && webexConnected(running) === true);
    fake.clickCardButton({ messageId: card.id, title: 'Approve', personEmail: 'alice@example.net' });
    await awaitUserMessage(session_id, /HUMAN OPERATOR RESPONSE: APPROVED/);
  });

  it('TTL expiry: escalated, the room told, the session told EXPIRED', async () => {
    const { incident_id, session_id } = await openIncident('R5');
    await requestApproval(incident_id, 'R5');
    clock.advance(30 * 60 * 1000 + 1);
    await awaitRoomText(new RegExp(`${incident_id}.*No operator decision within 30 min`));
    await awaitUserMessage(session_id, /HUMAN OPERATOR RESPONSE: EXPIRED/);
    const incident = await incidentState(incident_id);
    expect(incident.state).toBe('escalated');
    expect(incident.approval).toMatchObject({ decision: 'EXPIRED', by: 'relay', channel: 'ttl' });
    // The relay's own session log exists for the escalated run, whatever the agent does.
    const logs = join(dataDir, 'logs', 'troubleshooting');
    await waitUntil(() => existsSync(logs) && readdirSync(logs).some((f) => f.endsWith('-AD000002-R5.md')), 'the session log of R5');
    const file = readdirSync(logs).find((f) => f.endsWith('-AD000002-R5.md'))!;
    const text = readFileSync(join(logs, file), 'utf8');
    expect(text).toContain(incident_id);
    expect(text).toMatch(/EXPIRED/);
    expect(text).toContain('no neighbor 10.0.0.2 shutdown');
  });

  it('the bot token and tools token never reach the logs', () => {
    expect(log.text()).not.toContain(TOKEN);
    expect(log.text()).not.toContain(TOOLS);
    expect(log.text()).not.toContain(runtime.endpoint.password);
  });
});
