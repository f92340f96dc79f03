import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient } from '../../src/adapters/agent/client';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { newToken } from '../../src/core/operators/operators';
import { startHeadlessRelay, type RunningRelay } from '../../src/relay/start-headless';
import { newRoomId, startWebexFake, type WebexFake } from '../fakes/webex';
import { scriptedProviderConfig, startScriptedModel, type ScriptedModel } from '../fakes/scripted-model';
import { captureLogger } from '../helpers/capture-logger';
import { connectMcp } from '../helpers/mcp-client';
import { observerClient, startOpencode, waitUntil, type OpencodeHarness } from '../helpers/opencode';
import { createManualClock } from '../unit/messaging/helpers';
import type { OperatorChannel } from '../../src/core/approvals/operator-channel';

/** Whether the relay's Webex channel holds its websocket now. */
const webexConnected = (r: { channels: readonly OperatorChannel[] }) => r.channels.find((c) => c.name === 'webex')?.connection?.health().connected;

const TOKEN = 'bot-token-two-person';
const TOOLS = 'tools-token-two-person';
const ROOM = newRoomId();
const COMMANDS = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const RULE = 'SC-BGP-TWO';

let fake: WebexFake;
let model: ScriptedModel;
let runtime: OpencodeHarness;
let client: AgentClient;
let running: RunningRelay;
let mcp: Awaited<ReturnType<typeof connectMcp>>;
// Pinned at a weekday noon outside the year-end freeze: the verdict never depends on when the test runs.
const clock = createManualClock(Date.parse('2026-11-28T12:00:00.000Z'));
const dataDir = mkdtempSync(join(tmpdir(), 'policy-two-person-'));

beforeAll(async () => {
  fake = await startWebexFake({ token: TOKEN, roomId: ROOM });
  for (const email of ['alice@example.net', 'bob@example.net']) fake.addPerson({ email });
  const operators = [
    { name: 'Alice Tier2', email: 'alice@example.net', role: 'approver', groups: ['tier2'], token_sha256: newToken().sha256 },
    { name: 'Bob Change', email: 'bob@example.net', role: 'approver', groups: ['change-manager'], token_sha256: newToken().sha256 },
  ];
  writeFileSync(join(dataDir, 'operators.yaml'), stringify({ operators }));
  writeFileSync(join(dataDir, 'policy.yaml'), stringify({ version: 1, timezone: 'UTC', classes: [{ id: RULE, when: 'alert.alert_def_id == "AD000002"', approve: { groups: ['change-manager', 'tier2'], count: 2 } }] }));
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
      OPERATORS_FILE: join(dataDir, 'operators.yaml'),
      POLICY_FILE: join(dataDir, 'policy.yaml'),
      RELAY_TOOLS_TOKEN: TOOLS,
      RELAY_DATA_DIR: join(dataDir, 'data'),
      RELAY_LOG_DIR: join(dataDir, 'logs'),
      APPROVAL_TTL: '30m',
    },
    logger: captureLogger().logger,
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

const roomTexts = () => fake.postedMessages(ROOM).map((m) => m.markdown ?? m.text ?? '');
const awaitRoomText = (pattern: RegExp) => fake.until(() => roomTexts().some((t) => pattern.test(t)));
const toldSession = async (sessionId: string, pattern: RegExp) =>
  (await client.getMessages(sessionId)).filter((m) => m.info.role === 'user' && m.parts.some((p) => pattern.test(p.text ?? '')));

describe('a class that needs two people, on a real runtime', () => {
  it('the card shows the rule; one click is recorded 1 of 2 and the run is not told; the second person approves 2 of 2 and the run is told', async () => {
    const res = await request(`${running.url}/fault-alert`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(buildSplunkAlert({ device: 'R1' })) });
    const { incident_id } = (await res.body.json()) as { incident_id: string };
    const relay = running.relay;
    await waitUntil(async () => Boolean(relay.incidents.get(incident_id)?.session_id), 'the run has a session', { timeoutMs: 60_000 });
    const session_id = relay.incidents.get(incident_id)!.session_id!;

    const before = fake.postedMessages(ROOM).length;
    const asked = await mcp.call('request_approval', { incident_id, summary: 'Neighbor 10.0.0.2 is admin down', device: 'R1', commands: COMMANDS });
    expect(asked.json?.status, asked.text).toBe('pending');
    await fake.until(() => fake.postedMessages(ROOM).slice(before).some((m) => m.attachments?.length));
    const card = fake.postedMessages(ROOM).slice(before).find((m) => m.attachments?.length)!;
    expect(JSON.stringify(card.attachments?.[0]?.content)).toContain(`${RULE}: 2 approvals from change-manager, tier2 — none given yet`);

    fake.clickCardButton({ messageId: card.id, title: 'Approve', personEmail: 'alice@example.net' });
    await awaitRoomText(/alice@example\.net.*recorded: 1 of 2/);
    expect(relay.incidents.get(incident_id)).toMatchObject({ state: 'awaiting_approval', approval: null });
    // The same person again counts once.
    fake.clickCardButton({ messageId: card.id, title: 'Approve', personEmail: 'alice@example.net' });
    await awaitRoomText(/alice@example\.net.*approved this request already/);
    expect(await toldSession(session_id, /HUMAN OPERATOR RESPONSE/)).toHaveLength(0);

    fake.clickCardButton({ messageId: card.id, title: 'Approve', personEmail: 'bob@example.net' });
    await awaitRoomText(new RegExp(`${incident_id}.*APPROVED by Bob Change.*approved: 2 of 2`));
    await waitUntil(async () => (await toldSession(session_id, /HUMAN OPERATOR RESPONSE: APPROVED/)).length > 0, 'the run is told APPROVED', { timeoutMs: 60_000 });
    const votes = relay.incidents.timeline(incident_id).filter((e) => e.type === 'approval.vote');
    expect(votes.map((v) => [v.by, v.channel, v.given, v.needed])).toEqual([
      ['alice@example.net', 'webex', 1, 2],
      ['bob@example.net', 'webex', 2, 2],
    ]);
  });
});
