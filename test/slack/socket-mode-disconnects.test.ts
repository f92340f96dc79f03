import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { ChannelDecision } from '../../src/core/approvals/operator-channel';
import type { Incident } from '../../src/core/incidents/model';
import { createSlackChannel, type SlackChannel } from '../../src/adapters/channels/slack/slack-channel';
import { startSlackFake, type SlackFake } from '../fakes/slack/slack-fake';
import { createManualClock } from '../unit/messaging/helpers';

/** Slack's `disconnect` frames the unit tests of slack-channel leave out: `warning` and `link_disabled`. */
const IDS = { appToken: 'xapp-1-disc', botToken: 'xoxb-disc', appId: 'A0RELAY', teamId: 'T0OURS', channelId: 'C0OPS' };
const value = JSON.stringify({ incident_id: 'INC-1', request_id: 'REQ-1', decision: 'DENIED', lines: 'abcdef012345' });

let fake: SlackFake;
let channel: SlackChannel;
afterEach(async () => {
  await channel?.stop();
  await fake?.stop();
});

async function setUp() {
  fake = await startSlackFake({ ...IDS, users: { U0ALICE: 'alice@example.net' } });
  const clock = createManualClock();
  const decisions: ChannelDecision[] = [];
  let firstDecision: () => void = () => {};
  const decided = new Promise<void>((resolve) => (firstDecision = resolve));
  channel = createSlackChannel({
    ...IDS,
    apiUrl: fake.apiUrl,
    approver: (p) => p.email === 'alice@example.net',
    logger: pino({ level: 'silent' }),
    clock,
    random: () => 0,
    pingIntervalMs: 60_000,
  });
  channel.attach({
    decide: async (d) => {
      decisions.push(d);
      firstDecision();
      return { status: 'accepted', incident: { incident_id: 'INC-1' } as Incident, approval: {} as never };
    },
    incident: () => undefined,
    pending: () => [],
  });
  await channel.start();
  return { clock, decisions, decided };
}

describe('Slack Socket Mode disconnect frames', () => {
  it('warning: like refresh_requested, the new socket says hello before the old one is dropped, and clicks go on', async () => {
    const t = await setUp();
    fake.disconnect('warning');
    // Two open at once (the new one before the old one went), then one: no gap a click could fall into.
    await fake.until(() => fake.peakSockets() === 2 && fake.openSockets() === 1);
    expect(fake.connectionsOpened()).toBe(2);
    expect(channel.connection.health()).toEqual({ connected: true });
    fake.click({ user: 'U0ALICE', value });
    await t.decided;
    expect(t.decisions.map((d) => d.person.id)).toEqual(['alice@example.net']);
  });

  it('link_disabled: reported as degraded with its reason, and no reconnect loop', async () => {
    const t = await setUp();
    fake.disconnect('link_disabled');
    await fake.until(() => fake.openSockets() === 0);
    expect(channel.connection.health()).toEqual({
      connected: false,
      degraded: { reason: 'link_disabled', message: expect.stringMatching(/Socket Mode is turned off/) },
    });
    // Nothing is scheduled to try again, however long it stays off (the closed socket's own ping timer
    // may still be there until its close event is read; it opens nothing).
    expect(t.clock.pending().filter((ms) => ms !== 60_000)).toEqual([]);
    t.clock.advance(3_600_000);
    // A Web API call after the hour: the relay still talks to Slack, and asked for no new socket.
    await channel.tell('still here');
    expect(fake.connectionsOpened()).toBe(1);
    expect(fake.calls.filter((c) => c === 'apps.connections.open')).toHaveLength(1);
  });
});
