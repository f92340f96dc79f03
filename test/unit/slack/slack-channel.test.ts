import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { ChannelDecision, ChannelHost } from '../../../src/core/approvals/operator-channel';
import type { Incident } from '../../../src/core/incidents/model';
import { createSlackChannel, type SlackChannel } from '../../../src/adapters/channels/slack/slack-channel';
import { startSlackFake, type SlackFake } from '../../fakes/slack/slack-fake';
import { createManualClock } from '../messaging/helpers';

const IDS = { appToken: 'xapp-1-test', botToken: 'xoxb-test', appId: 'A0RELAY', teamId: 'T0OURS', channelId: 'C0OPS' };
const ASK = {
  incident_id: 'INC-1',
  request_id: 'REQ-abc',
  alert_def_id: 'AD000002',
  device: 'R1',
  summary: 'Neighbor <10.0.0.2> is admin down & needs a no shutdown',
  commands: ['router bgp 65001', ' no neighbor 10.0.0.2 shutdown', 'description a_b_c *x*'],
  expires_at: '2026-01-01T00:30:00Z',
  lines_sha256: 'abcdef0123456789abcdef',
  evidence: [],
};
const value = (decision: 'APPROVED' | 'DENIED', request_id = 'REQ-abc') => JSON.stringify({ incident_id: 'INC-1', request_id, decision, lines: 'abcdef012345' });

let fake: SlackFake;
let channel: SlackChannel;
afterEach(async () => {
  await channel?.stop();
  await fake?.stop();
});

async function setUp(opts: { allowed?: (p: { slackId: string; email?: string }) => boolean; result?: 'accepted' | 'already_decided' | 'recorded' } = {}) {
  fake = await startSlackFake({ ...IDS, users: { U0ALICE: 'alice@example.net', U0MALLORY: 'mallory@example.net' } });
  const clock = createManualClock();
  const decisions: { decision: ChannelDecision; ackedFirst: boolean }[] = [];
  let lastEnvelope = '';
  // Decisions land outside the fake: their own waiters, re-checked on each one.
  const waiters = new Set<() => void>();
  const decided = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => decisions.length >= n && (waiters.delete(check), resolve());
      waiters.add(check);
      check();
    });
  const host: ChannelHost = {
    decide: async (decision) => {
      decisions.push({ decision, ackedFirst: fake.acked(lastEnvelope) });
      waiters.forEach((w) => w());
      const incident = { incident_id: 'INC-1', device_hostname: 'R1' } as Incident;
      if (opts.result === 'already_decided') {
        return { status: 'already_decided', incident, approval: { decision: 'DENIED', by: 'bob', channel: 'api', at: '2026-01-01T00:00:00Z' } as never };
      }
      if (opts.result === 'recorded') {
        const requirement = { rule: 'SC-BGP-01 in freeze year-end', groups: ['change-manager', 'tier2'], count: 2, reason: '', policy_sha256: '' };
        return { status: 'recorded', incident: { ...incident, approval_request: { requirement, votes: [{ by: 'alice@example.net', channel: 'slack', at: '' }] } } as Incident, standing: { given: 1, needed: 2 } };
      }
      return { status: 'accepted', incident, approval: {} as never };
    },
    incident: () => undefined,
    pending: () => [],
  };
  channel = createSlackChannel({
    ...IDS,
    apiUrl: fake.apiUrl,
    approver: opts.allowed ?? ((p) => p.slackId === 'U0BOB' || p.email === 'alice@example.net'),
    logger: pino({ level: 'silent' }),
    clock,
    // No jitter: the first reconnect waits exactly 500 ms on the manual clock.
    random: () => 0,
    pingIntervalMs: 60_000,
  });
  channel.attach(host);
  await channel.start();
  const click = (c: Parameters<SlackFake['click']>[0]) => (lastEnvelope = fake.click(c));
  return { clock, decisions, click, decided };
}

describe('Slack operator channel (Socket Mode)', () => {
  it('asks with a Block Kit message: lines verbatim in a code block, the hash, value buttons carrying the request id', async () => {
    await setUp();
    const { message_id } = await channel.ask(ASK);
    const m = fake.messages.find((x) => x.ts === message_id)!;
    const text = JSON.stringify(m.blocks);
    expect(text).toContain('```\\nrouter bgp 65001\\n no neighbor 10.0.0.2 shutdown\\ndescription a_b_c *x*\\n```');
    expect(text).toContain('abcdef012345');
    expect(text).toContain('&lt;10.0.0.2&gt; is admin down &amp; needs');
    const actions = m.blocks!.find((b) => b.type === 'actions') as { elements: { url?: string; value: string; action_id: string }[] };
    expect(actions.elements.map((e) => JSON.parse(e.value))).toEqual([JSON.parse(value('APPROVED')), JSON.parse(value('DENIED'))]);
    expect(actions.elements.every((e) => e.url === undefined)).toBe(true);
  });

  it('a click from our app, workspace and channel by a listed person is acked first, then decided once, even when Slack repeats it', async () => {
    const t = await setUp();
    const id = t.click({ user: 'U0ALICE', value: value('APPROVED') });
    await t.decided(1);
    expect(t.decisions[0]).toEqual({ ackedFirst: true, decision: { channel: 'slack', incident_id: 'INC-1', request_id: 'REQ-abc', decision: 'APPROVED', person: { id: 'alice@example.net' } } });
    t.click({ user: 'U0ALICE', value: value('APPROVED'), envelopeId: id });
    t.click({ user: 'U0BOB', value: value('DENIED') });
    await t.decided(2);
    expect(t.decisions.map((d) => d.decision.person.id)).toEqual(['alice@example.net', 'slack:U0BOB']);
  });

  it('refuses clicks from another app, workspace or channel, and from a person not on the allow-list', async () => {
    const t = await setUp();
    t.click({ user: 'U0ALICE', value: value('APPROVED'), appId: 'A0OTHER' });
    t.click({ user: 'U0ALICE', value: value('APPROVED'), teamId: 'T0THEIRS' });
    t.click({ user: 'U0ALICE', value: value('APPROVED'), channelId: 'C0ELSE' });
    t.click({ user: 'U0MALLORY', value: value('APPROVED') });
    await fake.until(() => fake.ephemerals.some((e) => e.user === 'U0MALLORY'));
    expect(fake.ephemerals.find((e) => e.user === 'U0MALLORY')?.text).toMatch(/mallory@example.net is not allowed/);
    expect(t.decisions).toHaveLength(0);
  });

  it('says who decided first when a click comes after the decision', async () => {
    const t = await setUp({ result: 'already_decided' });
    t.click({ user: 'U0ALICE', value: value('APPROVED') });
    await fake.until(() => fake.ephemerals.length === 1);
    expect(fake.ephemerals[0]!.text).toMatch(/already DENIED by bob/);
  });

  it('tells the person their approval counted toward the policy rule, and how far it is', async () => {
    const t = await setUp({ result: 'recorded' });
    t.click({ user: 'U0ALICE', value: value('APPROVED') });
    await fake.until(() => fake.ephemerals.length === 1);
    expect(fake.ephemerals[0]!.text).toContain('recorded: 1 of 2 (SC-BGP-01 in freeze year-end: 2 approvals from change-manager, tier2 — 1 given, by alice@example.net)');
  });

  it('shows the policy rule and its progress with the lines', async () => {
    await setUp();
    const { message_id } = await channel.ask({ ...ASK, policy: 'SC-BGP-01 in freeze year-end: 2 approvals from change-manager, tier2 — none given yet' });
    expect(JSON.stringify(fake.messages.find((x) => x.ts === message_id)!.blocks)).toContain('*Policy*\\nSC-BGP-01 in freeze year-end: 2 approvals from change-manager, tier2 — none given yet');
  });

  it('acknowledges by updating the approval message: the buttons give way to the outcome', async () => {
    await setUp();
    const { message_id } = await channel.ask(ASK);
    const incident = { incident_id: 'INC-1', device_hostname: 'R1', approval_request: { request_id: 'REQ-abc', channel_messages: { slack: message_id } } } as unknown as Incident;
    await channel.acknowledge(incident, { decision: 'APPROVED', effective: 'APPROVED', by: 'alice@example.net', channel: 'slack', at: '2026-01-01T00:01:00Z', commands: ASK.commands } as never);
    expect(fake.updates).toHaveLength(1);
    expect(fake.updates[0]!.ts).toBe(message_id);
    expect(JSON.stringify(fake.updates[0]!.blocks)).toMatch(/APPROVED by alice@example.net via slack/);
    expect(fake.updates[0]!.blocks!.some((b) => b.type === 'actions')).toBe(false);
  });

  it('waits out a 429 for its Retry-After on the clock, then posts', async () => {
    const t = await setUp();
    fake.rateLimitNext('chat.postMessage', 7);
    const asked = channel.ask(ASK);
    await t.clock.fire(7_000);
    await asked;
    expect(fake.rateLimitedAnswers()).toBe(1);
    expect(fake.messages).toHaveLength(1);
  });

  it('refresh_requested: a fresh URL, the new socket says hello before the old one is dropped, and clicks go on', async () => {
    const t = await setUp();
    let sawTwo = false;
    const watching = fake.until(() => (sawTwo ||= fake.openSockets() === 2) && fake.openSockets() === 1);
    fake.disconnect('refresh_requested');
    await watching;
    expect(fake.connectionsOpened()).toBe(2);
    expect(channel.status()).toMatchObject({ connected: true });
    t.click({ user: 'U0ALICE', value: value('DENIED') });
    await t.decided(1);
  });

  it('too_many_websockets is reported as degraded, not retried in a loop', async () => {
    const t = await setUp();
    fake.disconnect('too_many_websockets');
    await fake.until(() => fake.openSockets() === 0);
    expect(channel.status()).toMatchObject({ connected: false, degraded: expect.stringMatching(/too many open websockets/) });
    t.clock.advance(120_000);
    expect(fake.connectionsOpened()).toBe(1);
  });

  it('ping/pong liveness: answered pings keep the socket, an unanswered one replaces it with a fresh URL', async () => {
    const t = await setUp();
    for (let n = 1; n <= 2; n++) {
      await t.clock.fire(60_000);
      await fake.until(() => fake.pings() === n);
      // A frame sent after the pong is read after it: once it is acked, the pong has arrived.
      const marker = t.click({ user: 'U0ALICE', value: 'not a relay button' });
      await fake.until(() => fake.acked(marker));
    }
    expect(fake.connectionsOpened()).toBe(1);
    fake.goSilent();
    await t.clock.fire(60_000);
    await t.clock.fire(60_000);
    // Dead: terminated, and the reconnect (backoff on the clock) asks Slack for a new URL.
    await fake.until(() => fake.openSockets() === 0);
    await t.clock.fire(500);
    await fake.until(() => fake.connectionsOpened() === 2 && fake.openSockets() === 1);
  });

  it('warns when Slack counts more connections than this relay opened', async () => {
    fake = await startSlackFake(IDS);
    fake.setExtraConnections(1);
    channel = createSlackChannel({ ...IDS, apiUrl: fake.apiUrl, approver: () => false, logger: pino({ level: 'silent' }), clock: createManualClock(), pingIntervalMs: 60_000 });
    await channel.start();
    expect(channel.status().warning).toMatch(/Slack reports 2 connections for this app; this relay opened 1/);
  });
});
