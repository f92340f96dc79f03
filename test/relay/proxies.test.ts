import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { fakePagerDuty } from '../fakes/pagers';
import { startFakeHec } from '../fakes/splunk-hec';
import { tempDir } from '../helpers/temp-dir';
import { ad000002 } from '../helpers/relay';
import { createAgentClient } from '../../src/adapters/agent/client';
import { createWebexBot, type WebexBot } from '../../src/adapters/channels/webex/webex-bot';
import { proxyFor, proxySettingsFromEnv } from '../../src/adapters/net/proxy';
import { startConnectProxy, type ConnectProxy } from '../fakes/connect-proxy';
import { newRoomId, startWebexFake, type WebexFake } from '../fakes/webex';
import { relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { startOtlpReceiver } from '../helpers/otlp-receiver';
import { inIncidentSpan, TRACE_ATTRIBUTES } from '../../src/adapters/telemetry/incident-trace';
import { startTelemetry } from '../../src/adapters/telemetry/sdk';

/**
 * Every outbound connection through a real (local) corporate proxy. The services are named
 * `*.test`, which only the proxy can resolve: a connection that bypassed it would fail.
 */
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function proxy(): Promise<ConnectProxy> {
  const p = await startConnectProxy();
  stops.push(p.stop);
  return p;
}

async function httpServer(handler: Parameters<typeof createServer>[1]): Promise<{ port: number }> {
  const server: Server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  stops.push(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
  return { port: (server.address() as AddressInfo).port };
}

describe('HTTPS_PROXY / HTTP_PROXY / NO_PROXY', () => {
  it('decides per URL: loopback and NO_PROXY entries direct, the rest through the proxy of their scheme', () => {
    const s = proxySettingsFromEnv({ HTTPS_PROXY: 'http://proxy.corp:3128', http_proxy: 'http://plain.corp:8080', NO_PROXY: '.internal.example, splunk.example:8089' });
    expect(proxyFor('https://webexapis.com/v1/messages', s)).toBe('http://proxy.corp:3128');
    expect(proxyFor('wss://mercury-connection-a.wbx2.com/x', s)).toBe('http://proxy.corp:3128');
    expect(proxyFor('http://runtime.example:4096', s)).toBe('http://plain.corp:8080');
    expect(proxyFor('http://127.0.0.1:4096', s)).toBeUndefined();
    expect(proxyFor('http://[::1]:4096', s)).toBeUndefined();
    expect(proxyFor('https://a.internal.example/x', s)).toBeUndefined();
    expect(proxyFor('https://splunk.example:8089/services', s)).toBeUndefined();
    expect(proxyFor('https://splunk.example:443/services', s)).toBe('http://proxy.corp:3128');
    expect(proxyFor('https://anything', proxySettingsFromEnv({ HTTPS_PROXY: 'http://p:1', NO_PROXY: '*' }))).toBeUndefined();
  });

  it('the Webex bot registers, connects its websocket and posts through the proxy', async () => {
    const p = await proxy();
    const token = `bot-${randomUUID()}`;
    const roomId = newRoomId();
    const fake: WebexFake = await startWebexFake({ token, roomId, publicName: 'webex.test' });
    stops.push(() => fake.stop());
    const port = new URL(fake.apiUrl).port;
    const bot: WebexBot = createWebexBot({
      token,
      roomId,
      u2cUrl: `http://webex.test:${port}/u2c/api/v1`,
      apiUrl: `http://webex.test:${port}/v1`,
      logger: silent,
      onCardSubmission: () => {},
      proxy: proxySettingsFromEnv({ HTTP_PROXY: p.url }),
    });
    stops.push(() => bot.stop());
    await bot.start();
    await bot.postMarkdown('through the proxy');
    expect(bot.status().connected).toBe(true);
    expect(fake.postedMessages(roomId).map((m) => m.markdown)).toEqual(['through the proxy']);
    // REST (catalog, people, devices, messages) and the websocket each went through it.
    expect(p.seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(p.seen)).toEqual(new Set([`webex.test:${port}`]));
    expect(fake.connections()).toHaveLength(1);
  });

  it('a runtime elsewhere is reached through the proxy; the embedded one on loopback never is', async () => {
    const p = await proxy();
    const runtime = await httpServer((req, res) => {
      res.writeHead(req.headers.authorization ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ healthy: true, version: 'remote' }));
    });
    const settings = proxySettingsFromEnv({ HTTP_PROXY: p.url });
    const remote = createAgentClient({ url: `http://runtime.test:${runtime.port}`, username: 'opencode', password: 'pw-remote-1' }, { proxy: settings });
    stops.push(() => remote.close());
    expect(await remote.health()).toMatchObject({ healthy: true, version: 'remote' });
    expect(p.seen).toEqual([`runtime.test:${runtime.port}`]);
    const local = createAgentClient({ url: `http://127.0.0.1:${runtime.port}`, username: 'opencode', password: 'pw' }, { proxy: settings });
    stops.push(() => local.close());
    await local.health();
    expect(p.seen).toHaveLength(1);
  });

  it('the search proxy reaches a Splunk behind the proxy', async () => {
    const p = await proxy();
    const splunk = await httpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization }));
    });
    const relay = await relayForTest({ agent: createStubRuntime(), env: { SEARCH_UPSTREAM_URL: `http://splunk.test:${splunk.port}/servicesNS`, SEARCH_UPSTREAM_TOKEN: 'splunk-token-1' }, proxy: proxySettingsFromEnv({ HTTP_PROXY: p.url }) });
    stops.push(() => relay.close());
    const res = await relay.app.inject({ url: '/search-platform/admin/search/saved/searches' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ path: '/servicesNS/admin/search/saved/searches', auth: 'Bearer splunk-token-1' });
    expect(p.seen).toEqual([`splunk.test:${splunk.port}`]);
  });

  it('pages and audit events reach PagerDuty and Splunk HEC behind the proxy', async () => {
    const p = await proxy();
    const pd = await fakePagerDuty('pd-key-behind-the-proxy');
    const pdPort = new URL(pd.url).port;
    const hec = await startFakeHec({ token: 'hec-token-behind-the-proxy' });
    stops.push(() => hec.close());
    const agent = createStubRuntime();
    // No model: the run fails at once, which pages and is audited.
    agent.model = null;
    const relay = await relayForTest({
      agent,
      env: { PAGERDUTY_ROUTING_KEY: 'pd-key-behind-the-proxy', PAGERDUTY_URL: `http://pagerduty.test:${pdPort}`, SPLUNK_HEC_URL: `http://splunk-hec.test:${hec.port}`, SPLUNK_HEC_TOKEN: 'hec-token-behind-the-proxy', RELAY_DATA_DIR: join(tempDir('fault-relay-proxy-'), 'data') },
      proxy: proxySettingsFromEnv({ HTTP_PROXY: p.url }),
    });
    stops.push(() => relay.close());
    const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() })).json<{ incident_id: string }>().incident_id;
    await pd.untilAccepted(1);
    expect(pd.accepted[0]).toMatchObject({ event_action: 'trigger', dedup_key: id });
    await vi.waitFor(() => expect(hec.indexed.size).toBeGreaterThan(0), { timeout: 30_000, interval: 50 });
    expect(new Set(p.seen)).toEqual(new Set([`pagerduty.test:${pdPort}`, `splunk-hec.test:${hec.port}`]));
  });

  it('spans reach the OTLP collector through the proxy; with the collector in NO_PROXY they go direct, never through it', async () => {
    const p = await proxy();
    const receiver = await startOtlpReceiver();
    stops.push(receiver.stop);
    const port = new URL(receiver.url).port;
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://otlp.test:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'fault-relay-proxied', OTEL_EXPORTER_OTLP_TIMEOUT: '5000', HTTP_PROXY: p.url };
    const incidentSpans = (id: string) => receiver.spans.filter((s) => s.attributes[TRACE_ATTRIBUTES.incident] === id);
    // The SDK reads its OTEL_* settings from the process's environment, as the relay's entry points give it.
    const saved = { ...process.env };
    stops.push(async () => {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    });
    Object.assign(process.env, env);

    const proxied = await startTelemetry(process.env);
    try {
      await inIncidentSpan({ incident_id: 'INC-PROXIED-1', device_hostname: 'R1' }, 'deliver', {}, async () => undefined);
      await proxied.flush();
      await receiver.until(() => incidentSpans('INC-PROXIED-1').length > 0, 'the span sent through the proxy');
    } finally {
      await proxied.shutdown();
    }
    expect(incidentSpans('INC-PROXIED-1').map((s) => s.name)).toEqual(['deliver']);
    expect(new Set(p.seen)).toEqual(new Set([`otlp.test:${port}`]));

    // NO_PROXY names the collector: the exporter connects directly, and otlp.test resolves only at the proxy.
    const seen = p.seen.length;
    process.env.NO_PROXY = 'otlp.test';
    const direct = await startTelemetry(process.env);
    try {
      await inIncidentSpan({ incident_id: 'INC-PROXIED-2', device_hostname: 'R1' }, 'deliver', {}, async () => undefined);
      // Settles once the export was tried: directly, where the name does not resolve.
      expect(String(await direct.flush().catch((error: unknown) => error))).toMatch(/ENOTFOUND otlp\.test/);
    } finally {
      await direct.shutdown();
    }
    expect(incidentSpans('INC-PROXIED-2')).toEqual([]);
    expect(p.seen).toHaveLength(seen);
  });
});
