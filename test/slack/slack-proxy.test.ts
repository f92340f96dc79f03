import { afterEach, describe, expect, it } from 'vitest';
import type { Incident } from '../../src/core/incidents/model';
import { proxySettingsFromEnv } from '../../src/adapters/net/proxy';
import { createSlackChannel } from '../../src/adapters/channels/slack/slack-channel';
import { startConnectProxy } from '../fakes/connect-proxy';
import { startSlackFake } from '../fakes/slack/slack-fake';
import { silent } from '../helpers/relay';

/**
 * Slack through a real (local) corporate proxy, as Webex goes (test/relay/proxies.test.ts). The fake
 * Slack is named `slack.test`, which only the proxy resolves: a call that bypassed it would fail.
 */
const IDS = { appToken: 'xapp-1-proxy', botToken: 'xoxb-proxy', appId: 'A0RELAY', teamId: 'T0OURS', channelId: 'C0OPS' };
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

describe('Slack behind HTTPS_PROXY / HTTP_PROXY', () => {
  it('the Web API, apps.connections.open and the Socket Mode websocket all go through the proxy', async () => {
    const proxy = await startConnectProxy();
    stops.push(proxy.stop);
    const fake = await startSlackFake({ ...IDS, publicName: 'slack.test', users: { U0ALICE: 'alice@example.net' } });
    stops.push(fake.stop);
    const port = new URL(fake.apiUrl).port;
    const slack = createSlackChannel({
      ...IDS,
      apiUrl: fake.apiUrl,
      approver: (p) => p.email === 'alice@example.net',
      logger: silent,
      pingIntervalMs: 60_000,
      proxy: proxySettingsFromEnv({ HTTP_PROXY: proxy.url, NO_PROXY: 'localhost' }),
    });
    stops.push(() => slack.stop());
    let decided: (by: string) => void = () => {};
    const decision = new Promise<string>((resolve) => (decided = resolve));
    slack.attach({
      decide: async (d) => {
        decided(d.person.id);
        return { status: 'accepted', incident: { incident_id: d.incident_id } as Incident, approval: {} as never };
      },
      incident: () => undefined,
      pending: () => [],
    });

    await slack.start();
    expect(slack.connection.health()).toMatchObject({ connected: true });
    await slack.tell('through the proxy');
    expect(fake.messages.map((m) => m.text)).toEqual(['through the proxy']);
    // A click comes back over the websocket, which was opened through the proxy's tunnel.
    fake.click({ user: 'U0ALICE', value: JSON.stringify({ incident_id: 'INC-1', request_id: 'REQ-1', decision: 'APPROVED', lines: 'abcdef012345' }) });
    expect(await decision).toBe('alice@example.net');
    expect(fake.calls).toEqual(expect.arrayContaining(['auth.test', 'bots.info', 'apps.connections.open', 'chat.postMessage', 'users.info']));
    expect(proxy.seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(proxy.seen)).toEqual(new Set([`slack.test:${port}`]));
  });
});
