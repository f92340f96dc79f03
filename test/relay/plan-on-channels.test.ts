import { afterEach, describe, expect, it } from 'vitest';
import { decidedBlocks } from '../../src/adapters/channels/slack/blocks';
import { slackChannel } from '../../src/adapters/channels/slack/from-config';
import { approvalSchema } from '../../src/core/incidents/model';
import { webexChannel } from '../../src/adapters/channels/webex/from-config';
import { planAsLines } from '../../src/core/approvals/plan-lines';
import type { ConfigPreview } from '../../src/runbooks/config-preview';
import { startSlackFake } from '../fakes/slack/slack-fake';
import { newRoomId, startWebexFake } from '../fakes/webex';
import { ad000002, relayForTest, silent, testConfig } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

const stops: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** Every `text` a card or a message shows, in the order a person reads it. */
function textsOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(textsOf);
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) => (k === 'text' && typeof v === 'string' ? [v] : textsOf(v)));
}

const preview = (device: string, added: string[], rollback: string[]): ConfigPreview => ({
  device,
  accepted: true,
  method: 'candidate',
  added,
  removed: [],
  problems: [],
  rollback: { method: 'restore', lines: rollback },
});

const PLAN = [
  { device: 'R1', commands: ['interface eth1', ' ip ospf mtu-ignore'], rollback: [], preview: preview('R1', ['interface eth1', ' ip ospf mtu-ignore'], ['interface eth1', ' no ip ospf mtu-ignore']) },
  { device: 'R2', commands: ['interface eth2', ' mtu 1500'], rollback: [], preview: preview('R2', ['interface eth2', ' mtu 1500'], ['interface eth2', ' mtu 9000']) },
];

/** Where each of `wanted` first appears in `texts` after the one before: the order a person reads them. */
function inOrder(texts: string[], wanted: (string | RegExp)[]): number[] {
  let from = 0;
  return wanted.map((w) => {
    const at = texts.findIndex((t, i) => i >= from && (typeof w === 'string' ? t.includes(w) : w.test(t)));
    from = at + 1;
    return at;
  });
}

describe('a change plan on the operator channels', () => {
  it('Webex and Slack show each device under its own heading, with its lines, its preview and its rollback, and the plan\'s request id and hash', async () => {
    const roomId = newRoomId();
    const webexFake = await startWebexFake({ token: 'webex-plan-token', roomId });
    stops.push(() => webexFake.stop());
    const ids = { appToken: 'xapp-1-plan', botToken: 'xoxb-plan', appId: 'A0RELAY', teamId: 'T0OURS', channelId: 'C0OPS' };
    const slackFake = await startSlackFake(ids);
    stops.push(slackFake.stop);
    const env = {
      MSG_BOT_TOKEN: 'webex-plan-token', MSG_ROOM_ID: roomId, MSG_U2C_URL: webexFake.u2cUrl, MSG_API_URL: webexFake.apiUrl,
      SLACK_APP_TOKEN: ids.appToken, SLACK_BOT_TOKEN: ids.botToken, SLACK_CHANNEL_ID: ids.channelId, SLACK_API_URL: slackFake.apiUrl,
    };
    const config = testConfig(env);
    const channels = [webexChannel.fromConfig(config, { logger: silent })!, slackChannel.fromConfig(config, { logger: silent })!];
    stops.push(async () => Promise.all(channels.map((c) => c.stop?.())));
    const relay = await relayForTest({ agent: createStubRuntime(), channels, env });
    stops.push(() => relay.close());

    const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
    const id = res.json().incident_id as string;
    const pending = await relay.approvals.request({ incident_id: id, summary: 'fix the MTU on both ends', device: 'R1', commands: planAsLines(PLAN), plan: PLAN });
    expect(pending).toMatchObject({ status: 'pending', channels: ['webex', 'slack'] });
    const request = relay.incidents.get(id)!.approval_request!;
    const hash = request.lines_sha256.slice(0, 12);

    const perDevice = (rollbackR1: string, rollbackR2: string) => [
      /Device 1 of 2: .?R1/, 'ip ospf mtu-ignore', '+  ip ospf mtu-ignore', 'Rollback', rollbackR1,
      /Device 2 of 2: .?R2/, 'mtu 1500', '+  mtu 1500', 'Rollback', rollbackR2,
    ];

    const card = webexFake.postedMessages(roomId).find((m) => m.id === request.channel_messages?.webex)!.attachments![0]!.content;
    const cardTexts = textsOf(card.body);
    expect(inOrder(cardTexts, perDevice('no ip ospf mtu-ignore', 'mtu 9000')).every((at) => at >= 0), cardTexts.join('\n')).toBe(true);
    expect(cardTexts.some((t) => /^\s*!\s*device/i.test(t)), 'no "! device" heading is shown as a line').toBe(false);
    const facts = (card.body as { type: string; facts?: { title: string; value: string }[] }[]).find((b) => b.type === 'FactSet')!.facts!;
    expect(facts).toEqual(expect.arrayContaining([{ title: 'Request', value: request.request_id }, { title: 'Devices', value: 'R1, R2' }, { title: 'Plan hash', value: hash }]));
    expect((card.actions as { title: string }[]).map((a) => a.title)).toEqual(['Approve', 'Deny']);

    const message = slackFake.messages.find((m) => m.ts === request.channel_messages?.slack)!;
    const slackTexts = textsOf(message.blocks);
    expect(inOrder(slackTexts, perDevice('no ip ospf mtu-ignore', 'mtu 9000')).every((at) => at >= 0), slackTexts.join('\n')).toBe(true);
    expect(slackTexts.some((t) => /(^|\n)\s*!\s*device/i.test(t))).toBe(false);
    expect(slackTexts).toEqual(expect.arrayContaining([`*Request*\n${request.request_id}`, '*Devices*\nR1, R2', `*Plan hash*\n${hash}`]));

    // Once decided, the Slack message keeps the lines grouped by device.
    const approval = approvalSchema.parse({ decision: 'APPROVED', effective: 'APPROVED', by: 'alice@example.net', channel: 'slack', at: new Date().toISOString(), commands: request.commands, forwarded_at: null, request_id: request.request_id });
    const decided = textsOf(decidedBlocks(relay.incidents.get(id)!, approval).blocks);
    expect(inOrder(decided, [/one change plan on `R1`, `R2`/, '`R1`', 'ip ospf mtu-ignore', '`R2`', 'mtu 1500', /APPROVED by alice@example.net/]).every((at) => at >= 0), decided.join('\n')).toBe(true);
    expect(decided.some((t) => /(^|\n)\s*!\s*device/i.test(t))).toBe(false);
  });
});
