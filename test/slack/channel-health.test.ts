import { afterEach, describe, expect, it } from 'vitest';
import { webexChannel } from '../../src/adapters/channels/webex/from-config';
import type { Relay } from '../../src/relay/create-relay';
import { createSlackChannel } from '../../src/adapters/channels/slack/slack-channel';
import { startSlackFake } from '../fakes/slack/slack-fake';
import { newRoomId, startWebexFake } from '../fakes/webex';
import { relayForTest, silent, testConfig } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

/** `/health/deep`'s messaging check, one entry per configured channel, from each channel's own status. */
const IDS = { appToken: 'xapp-1-health-secret', botToken: 'xoxb-health-secret', appId: 'A0RELAY', teamId: 'T0OURS', channelId: 'C0OPS' };
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

const deep = async (relay: Relay) => {
  const res = await relay.app.inject({ url: '/health/deep' });
  return { code: res.statusCode, body: res.json(), raw: res.body };
};

describe('/health/deep messaging, per channel', () => {
  it('reports Webex and Slack side by side; Slack degraded with its reason when Socket Mode is turned off, and a warning when someone else holds the app token', async () => {
    const slackFake = await startSlackFake(IDS);
    stops.push(slackFake.stop);
    const roomId = newRoomId();
    const webexFake = await startWebexFake({ token: 'webex-bot-secret', roomId });
    stops.push(() => webexFake.stop());
    const env = { MSG_BOT_TOKEN: 'webex-bot-secret', MSG_ROOM_ID: roomId, MSG_U2C_URL: webexFake.u2cUrl, MSG_API_URL: webexFake.apiUrl };
    const webex = webexChannel.fromConfig(testConfig(env), { logger: silent })!;
    stops.push(() => webex.stop());
    const slack = createSlackChannel({ ...IDS, apiUrl: slackFake.apiUrl, approver: () => false, logger: silent, pingIntervalMs: 60_000 });
    stops.push(() => slack.stop());
    const relay = await relayForTest({ agent: createStubRuntime(), channels: [webex, slack], env });
    stops.push(() => relay.close());

    // Configured but not yet connected: both say so, and the check fails until they are.
    const before = await deep(relay);
    expect(before.body.checks.messaging).toMatchObject({ configured: true, connected: false, channels: { webex: { state: 'connecting' }, slack: { state: 'connecting' } } });
    expect(before.body.status).toBe('degraded');

    // Another process holds the app token: Slack's hello counts its connection too.
    slackFake.setExtraConnections(1);
    await Promise.all([webex.connection!.connect(), slack.start()]);
    const up = await deep(relay);
    expect(up.body.checks.messaging).toMatchObject({
      configured: true,
      connected: true,
      channels: {
        webex: { configured: true, state: 'connected', connected: true },
        slack: { configured: true, state: 'connected', connected: true, warning: { reason: 'other_connections', message: expect.stringMatching(/Slack reports 2 connections/) } },
      },
    });
    expect(up.code).toBe(200);

    slackFake.disconnect('link_disabled');
    await slackFake.until(() => slackFake.openSockets() === 0);
    const down = await deep(relay);
    expect(down.code).toBe(503);
    expect(down.body.checks.messaging).toMatchObject({
      configured: true,
      connected: false,
      error: expect.stringMatching(/^slack: .*Socket Mode is turned off/),
      channels: { webex: { state: 'connected' }, slack: { state: 'degraded', connected: false, reason: 'link_disabled' } },
    });
    expect(down.body.checks.messaging.standby).toBeUndefined();
    for (const secret of [IDS.appToken, IDS.botToken, 'webex-bot-secret']) expect(down.raw).not.toContain(secret);
  });

  it('without a channel the check is off, as before', async () => {
    const relay = await relayForTest({ agent: createStubRuntime() });
    stops.push(() => relay.close());
    expect((await deep(relay)).body.checks.messaging).toEqual({ configured: false, connected: false });
  });
});
