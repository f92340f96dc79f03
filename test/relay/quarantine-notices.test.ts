import { afterEach, describe, expect, it, vi } from 'vitest';
import { slackChannel } from '../../src/adapters/channels/slack/from-config';
import { webexChannel } from '../../src/adapters/channels/webex/from-config';
import { memoryQuarantine, type QuarantineEntry } from '../../src/core/quarantine/entry';
import { createNotifier } from '../../electron/notifications';
import { startSlackFake } from '../fakes/slack/slack-fake';
import { newRoomId, startWebexFake } from '../fakes/webex';
import { connectMcp } from '../helpers/mcp-client';
import { ad000002, relayForTest, silent, testConfig } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { fakeNotifications } from '../unit/electron/fakes';

/**
 * A device whose change could not be put back: every new notice about it, on every channel, says so
 * in the relay's own words before anything else (the agents' message comes after, quoted).
 */
const stops: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

const HELD: QuarantineEntry = {
  device: 'R1',
  reason: 'change chg-1 of INC-20261128T090000Z-0001: ROLLBACK FAILED (post-check failed): check the device',
  since: '2026-11-28T10:00:00.000Z',
  incident_id: 'INC-20261128T090000Z-0001',
  change_id: 'chg-1',
};
const LINE = `⛔ R1 is quarantined since ${HELD.since}: ${HELD.reason}`;

/** Webex and Slack (their fakes) and the desktop's notifications, on a relay that holds R1 quarantined. */
async function start() {
  const roomId = newRoomId();
  const webexFake = await startWebexFake({ token: 'webex-quarantine-token', roomId });
  stops.push(() => webexFake.stop());
  const ids = { appToken: 'xapp-1-quarantine', botToken: 'xoxb-quarantine', appId: 'A0RELAY', teamId: 'T0OURS', channelId: 'C0OPS' };
  const slackFake = await startSlackFake(ids);
  stops.push(slackFake.stop);
  const env = {
    RELAY_TOOLS_TOKEN: 'tok',
    ...{ MSG_BOT_TOKEN: 'webex-quarantine-token', MSG_ROOM_ID: roomId, MSG_U2C_URL: webexFake.u2cUrl, MSG_API_URL: webexFake.apiUrl },
    ...{ SLACK_APP_TOKEN: ids.appToken, SLACK_BOT_TOKEN: ids.botToken, SLACK_CHANNEL_ID: ids.channelId, SLACK_API_URL: slackFake.apiUrl },
  };
  const config = testConfig(env);
  const channels = [webexChannel.fromConfig(config, { logger: silent })!, slackChannel.fromConfig(config, { logger: silent })!];
  stops.push(async () => Promise.all(channels.map((c) => c.stop?.())));
  const quarantine = memoryQuarantine();
  await quarantine.add(HELD);
  const relay = await relayForTest({ agent: createStubRuntime(), channels, env, quarantine });
  stops.push(() => relay.close());
  // The desktop app's notifier, wired as tray-wiring.ts wires it on a laptop relay.
  const { shown, FakeNotification } = fakeNotifications();
  const notifier = createNotifier({ Notification: FakeNotification, supportsActions: true, bus: relay.bus, decide: () => ({ status: 'unknown_incident' }), user: 'oncall-jane', openIncident: () => {}, quarantined: (d) => relay.quarantine.cached(d), logger: silent });
  stops.push(notifier.stop);
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const tools = await connectMcp(`${url}/mcp`, 'tok');
  stops.push(() => tools.close());
  const fire = async (device: string) =>
    (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002({ system: device })) })).json().incident_id as string;
  const webex = () => webexFake.postedMessages(roomId).map((m) => m.markdown ?? '');
  const slack = () => slackFake.messages.map((m) => String(m.text ?? ''));
  return { relay, tools, fire, webex, slack, shown };
}

describe('new notices about a quarantined device', () => {
  it('the agents\' message on Webex and Slack, the escalation and the desktop notification each say the device is quarantined, first', async () => {
    const t = await start();
    const id = await t.fire('R1');
    const notified = await t.tools.call('notify', { incident_id: id, kind: 'fault-received', markdown: 'BGP neighbor 10.0.0.2 is admin down; the RAW re-enables it.' });
    expect(notified.json).toMatchObject({ posted: true });
    const [webexNotice] = t.webex().filter((m) => m.includes('fault-received'));
    expect(webexNotice).toMatch(new RegExp(`^\\*\\*${id}\\*\\* · fault-received\\n\\n${escape(LINE)}\\n`));
    expect(webexNotice!.indexOf(LINE)).toBeLessThan(webexNotice!.indexOf('BGP neighbor 10.0.0.2 is admin down'));
    const [slackNotice] = t.slack().filter((m) => m.includes('fault-received'));
    expect(slackNotice).toContain(LINE);

    // The run asks anyway: no card anywhere, a ⛔ message on both, and the desktop's outcome notification leads with the quarantine.
    const asked = await t.tools.call('request_approval', { incident_id: id, summary: 'unshut the neighbor', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    expect(asked.json).toMatchObject({ status: 'escalated_quarantined' });
    // Posted without holding up the tool's answer: waited for where it lands.
    await vi.waitFor(() => {
      for (const room of [t.webex(), t.slack()]) expect(room.filter((m) => m.startsWith('⛔') && m.includes('R1 is quarantined since'))).toHaveLength(1);
    });
    const escalated = t.shown.find((n) => n.subtitle === id)!;
    expect(escalated).toMatchObject({ title: 'Escalated: R1' });
    expect(escalated.body!.split('\n')[0]).toBe(LINE);
  });

  it('a notice about another device carries no quarantine line', async () => {
    const t = await start();
    const id = await t.fire('R2');
    expect((await t.tools.call('notify', { incident_id: id, kind: 'fault-received', markdown: 'R2 only.' })).json).toMatchObject({ posted: true });
    for (const room of [t.webex(), t.slack()]) expect(room.join('\n')).not.toContain('quarantined');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
