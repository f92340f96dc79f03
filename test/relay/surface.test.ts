import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load';
import { createLogger, secretsOf } from '../../src/adapters/log/logger';
import { createSecretScrubber } from '../../src/adapters/log/secret-scrubber';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { manualClock } from '../unit/incidents/in-memory-incidents';
import { z } from 'zod';
import { define } from '../../src/core/events/define';

/** A line of no particular kind, to see it pass through. */
const note = define('note', z.looseObject({}), 'runtime');

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const json = { 'content-type': 'application/json' };
const alert = JSON.stringify(ad000002());

/** A logger exactly as `npm run relay` makes it (redaction by key and the value scrubber), capturing its lines. */
function relayLogger(env: Record<string, string>) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const scrubber = createSecretScrubber();
  for (const { value, username } of secretsOf(env)) scrubber.add(value, { username });
  return { logger: createLogger({ level: 'info', destination: sink, scrubber }), text: () => lines.join('\n') };
}

describe('Host header', () => {
  it('refuses a name the relay does not serve before routing, on every route', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    for (const url of ['/health', '/sessions', '/ui/', '/nope']) {
      const res = await relay.app.inject({ url, headers: { host: 'attacker.example:8080' } });
      expect(res.statusCode, url).toBe(421);
      expect(res.json().error.code).toBe('host_not_allowed');
    }
    const post = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { ...json, host: 'rebound.attacker.example' }, payload: alert });
    expect(post.statusCode).toBe(421);
    expect(relay.incidents.list()).toHaveLength(0);
    for (const host of ['127.0.0.1:8080', 'localhost', '[::1]:8080', '127.0.0.2']) {
      expect((await relay.app.inject({ url: '/health', headers: { host } })).statusCode, host).toBe(200);
    }
  });

  it('serves the names in RELAY_ALLOWED_HOSTS, and a relay bound beyond loopback must name them', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { RELAY_ALLOWED_HOSTS: 'relay.example.net, relay2.example.net:9443' } });
    expect((await relay.app.inject({ url: '/health', headers: { host: 'relay.example.net:8080' } })).statusCode).toBe(200);
    expect((await relay.app.inject({ url: '/health', headers: { host: 'relay2.example.net:9443' } })).statusCode).toBe(200);
    expect((await relay.app.inject({ url: '/health', headers: { host: 'relay2.example.net:80' } })).statusCode).toBe(421);
    expect(() => loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', RELAY_HOST: '0.0.0.0' })).toThrow(ConfigError);
    try {
      loadConfig({ RELAY_HOST: '0.0.0.0' });
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([expect.stringMatching(/^RELAY_ALLOWED_HOSTS: required when RELAY_HOST \(0\.0\.0\.0\) is not a loopback address/)]);
    }
  });
});

describe('requests from another origin', () => {
  let upstream: Server;
  let upstreamUrl: string;
  let forwarded = 0;
  beforeAll(async () => {
    upstream = createServer((_req, res) => {
      forwarded += 1;
      res.end('{}');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/servicesNS`;
  });
  afterAll(async () => new Promise((r) => upstream.close(r)));

  it('refuses writes and proxying from another origin or site; same-origin and no-origin callers (Splunk, scripts) pass', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { SEARCH_UPSTREAM_URL: upstreamUrl, SEARCH_UPSTREAM_TOKEN: 'upstream-credential-1' } });
    const host = '127.0.0.1:8080';
    const cross = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { ...json, host, origin: 'https://attacker.example' }, payload: alert });
    expect(cross.statusCode).toBe(403);
    expect(cross.json().error.code).toBe('cross_origin_refused');
    const nullOrigin = await relay.app.inject({ method: 'POST', url: '/headed', headers: { ...json, host, origin: 'null' }, payload: alert });
    expect(nullOrigin.statusCode).toBe(403);
    const site = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { ...json, host, 'sec-fetch-site': 'cross-site' }, payload: alert });
    expect(site.statusCode).toBe(403);
    expect(relay.incidents.list()).toHaveLength(0);

    // The cross-site form post that used to reach Splunk with the relay's credential.
    const form = await relay.app.inject({ method: 'POST', url: '/search-platform/services/search/jobs', headers: { host, 'content-type': 'text/plain' }, payload: 'search=| delete' });
    expect(form.statusCode).toBe(403);
    const read = await relay.app.inject({ url: '/search-platform/services/search/jobs', headers: { host, origin: 'https://attacker.example' } });
    expect(read.statusCode).toBe(403);
    expect(forwarded).toBe(0);

    const sameOrigin = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { ...json, host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' }, payload: alert });
    expect(sameOrigin.statusCode).toBe(202);
    const splunk = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { ...json, host }, payload: JSON.stringify(ad000002({ system: 'R2' })) });
    expect(splunk.statusCode).toBe(202);
    const script = await relay.app.inject({ url: '/search-platform/services/search/jobs', headers: { host } });
    expect(script.statusCode).toBe(200);
    expect(forwarded).toBe(1);
  });
});

describe('secrets by value', () => {
  it('a UI login with an encoded parameter name works and leaves the secret in no log line, in any encoding', async () => {
    const SECRET = 'ui-secret-Zq81+/=';
    const env = { WEBHOOK_SECRET: SECRET };
    const log = relayLogger(env);
    relay = await relayForTest({ agent: createStubRuntime(), env, logger: log.logger });
    const login = await relay.app.inject({ url: `/ui?%74oken=${encodeURIComponent(SECRET)}` });
    expect(login.statusCode).toBe(303);
    expect(login.headers['set-cookie']).toBeDefined();
    await relay.app.inject({ url: `/ui?t%6fken=${[...SECRET].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}` });
    await relay.app.inject({ url: '/sessions', headers: { authorization: `Bearer ${SECRET}x` } });
    const text = log.text();
    expect(text).toContain('/ui?');
    for (const form of [SECRET, encodeURIComponent(SECRET), Buffer.from(SECRET).toString('base64'), 'ui-secret-Zq81']) expect(text).not.toContain(form);
  });

  it('credentials in AGENT_URL become the runtime credentials and are never shown or logged', async () => {
    const env = { AGENT_URL: 'http://relay-user:p%40ss-Word-77@127.0.0.1:1/' };
    expect(loadConfig(env)).toMatchObject({ AGENT_URL: 'http://127.0.0.1:1/', AGENT_SERVER_USERNAME: 'relay-user', AGENT_SERVER_PASSWORD: 'p@ss-Word-77' });
    const log = relayLogger(env);
    relay = await relayForTest({ agent: createStubRuntime(), env: { ...env, AGENT_SERVER_PASSWORD: '' }, logger: log.logger });
    const health = (await relay.app.inject({ url: '/health' })).json();
    expect(JSON.stringify(health)).not.toMatch(/relay-user|p@ss|p%40ss/);
    log.logger.info({ attempt: env.AGENT_URL, basic: Buffer.from('relay-user:p@ss-Word-77').toString('base64') }, 'connecting to p@ss-Word-77');
    expect(log.text()).not.toMatch(/p@ss-Word-77|p%40ss-Word-77|cmVsYXktdXNlcjpwQHNzLVdvcmQtNzc/);
  });
});

describe('error codes fit the route', () => {
  it('names what was wrong and where, in the documented shape', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { RELAY_TOOLS_TOKEN: 'tools-token-1' } });
    const code = async (opts: { url: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; payload?: string }) => {
      const res = await relay!.app.inject(opts);
      return [res.statusCode, res.json().error?.code];
    };
    expect(await code({ url: `/sessions/${'x'.repeat(65)}` })).toEqual([400, 'invalid_params']);
    expect(await code({ url: '/sessions/INC-nope' })).toEqual([404, 'not_found']);
    expect(await code({ url: '/sessions/INC-nope?limit=0' })).toEqual([400, 'invalid_query']);
    expect(await code({ method: 'POST', url: '/fault-alert', headers: json, payload: '{"result": {"__proto__": {"x": 1}}}' })).toEqual([400, 'forbidden_key']);
    expect(await code({ method: 'POST', url: '/fault-alert', headers: json, payload: '{"a": ' })).toEqual([400, 'invalid_json']);
    expect(await code({ method: 'POST', url: '/fault-alert', headers: json, payload: '{}' })).toEqual([400, 'invalid_alert']);
    expect(await code({ method: 'POST', url: '/headed?mode=loose', headers: json, payload: alert })).toEqual([400, 'invalid_query']);
    expect(await code({ method: 'POST', url: `/headed/HEADED-x/terminal/input`, headers: { ...json, authorization: `Bearer ${relay.terminalSecret}` }, payload: '{}' })).toEqual([400, 'invalid_body']);
    expect(relay.incidents.list()).toHaveLength(0);
  });
});

describe('repeats and long timelines', () => {
  it('a burst of repeats raises the count with one timeline line; a later burst adds one more', async () => {
    const clock = manualClock(new Date().toISOString());
    relay = await relayForTest({ agent: createStubRuntime(), clock });
    const post = () => relay!.app.inject({ method: 'POST', url: '/fault-alert', headers: json, payload: alert });
    const id = (await post()).json().incident_id as string;
    for (let i = 0; i < 20; i++) {
      clock.advance(1000);
      expect((await post()).json().status).toBe('duplicate');
    }
    const lines = () => relay!.incidents.timeline(id).filter((e) => e.type === 'alert.repeated');
    expect(relay.incidents.get(id)?.occurrences).toBe(21);
    expect(lines()).toHaveLength(1);
    clock.advance(5 * 60_000);
    await post();
    expect(lines().map((e) => e.occurrences)).toEqual([2, 22]);
  });

  it('pages a timeline with offset and limit, saying where the next page starts', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: json, payload: alert })).json().incident_id as string;
    for (let i = 0; i < 30; i++) relay.incidents.record(id, note, `note ${i}`);
    const total = relay.incidents.timeline(id).length;
    const first = (await relay.app.inject({ url: `/sessions/${id}?limit=10` })).json();
    expect(first).toMatchObject({ incident_id: id, timeline_total: total, next_offset: 10 });
    expect(first.timeline).toHaveLength(10);
    const last = (await relay.app.inject({ url: `/sessions/${id}?offset=${total - 5}&limit=10` })).json();
    expect(last.timeline.map((e: { message: string }) => e.message)).toEqual(['note 25', 'note 26', 'note 27', 'note 28', 'note 29']);
    expect(last.next_offset).toBeNull();
  });
});
