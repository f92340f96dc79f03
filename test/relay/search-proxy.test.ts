import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { relayForTest } from '../helpers/relay';

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: string }
let upstream: Server;
let upstreamUrl: string;
const seen: Seen[] = [];
let hang = false;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (hang) return; // never answers: the relay must time out
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes', 'set-cookie': 'splunkd=abc' });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/servicesNS`;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

let relay: Relay | undefined;
afterEach(async () => {
  hang = false;
  seen.length = 0;
  await relay?.close();
  relay = undefined;
});

describe('/search-platform proxy', () => {
  it('answers 503 when SEARCH_UPSTREAM_URL is unset', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const res = await relay.app.inject({ url: '/search-platform/services/saved/searches' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('proxy_not_configured');
  });

  it('forwards method, path without the prefix, query, body and status; uses the relay credential', async () => {
    relay = await relayForTest({
      agent: createStubRuntime(),
      env: { SEARCH_UPSTREAM_URL: upstreamUrl, SEARCH_UPSTREAM_TOKEN: 'upstream-token-1', WEBHOOK_SECRET: 'relay-secret-1' },
    });
    const res = await relay.app.inject({
      method: 'POST',
      url: '/search-platform/admin/search/saved/searches?output_mode=json&count=0',
      headers: {
        authorization: 'Bearer relay-secret-1',
        cookie: 'session=user-cookie',
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: 'name=AD000002&search=index%3Dnet',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ ok: true });
    expect(res.headers['x-upstream']).toBe('yes');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req).toMatchObject({ method: 'POST', url: '/servicesNS/admin/search/saved/searches?output_mode=json&count=0', body: 'name=AD000002&search=index%3Dnet' });
    expect(req?.headers.authorization).toBe('Bearer upstream-token-1');
    expect(req?.headers.cookie).toBeUndefined();
    expect(req?.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('never forwards the caller\'s Authorization when no upstream credential is set', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { SEARCH_UPSTREAM_URL: upstreamUrl } });
    const res = await relay.app.inject({ method: 'DELETE', url: '/search-platform/saved/searches/x', headers: { authorization: 'Basic YWRtaW46Y2hhbmdlbWU=' } });
    expect(res.statusCode).toBe(201);
    expect(seen[0]?.method).toBe('DELETE');
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it('rejects path traversal however it is encoded, without contacting the upstream', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { SEARCH_UPSTREAM_URL: upstreamUrl } });
    // Raw requests: inject() and WHATWG URLs would normalise these paths before the relay saw them.
    const base = await relay.listen({ port: 0, host: '127.0.0.1' });
    const rawGet = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(base, { path }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    for (const path of [
      '/search-platform/../../etc/passwd',
      '/search-platform/a/%2e%2e/b',
      '/search-platform/a/%2E%2E/b',
      '/search-platform/a/%252e%252e/b',
      '/search-platform/a/..%5c..%5cb',
      // What Tomcat/Spring read as `../`, what stops at a NUL, and separators the upstream may decode.
      '/search-platform/..;/x',
      '/search-platform/a/..;/..;/x',
      '/search-platform/a;jsessionid=1/x',
      '/search-platform/..%00/x',
      '/search-platform/a%00b',
      '/search-platform/%2e%2e/x',
      '/search-platform/.%2e/x',
      '/search-platform/%252e%252e/x',
      '/search-platform/a%252fb',
      '/search-platform/a%2fb',
      '/search-platform/a%2F..%2Fb',
      '/search-platform/a%5cb',
      '/search-platform/a\\..\\b',
      '/search-platform/a\\b',
      '/search-platform/a/%3b/b',
    ]) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(400);
      const body = JSON.parse(res.body) as { error: { code: string; message: string } };
      expect(Object.keys(body), path).toEqual(['error']);
      expect(body.error.code).toBe('invalid_path');
      expect(body.error.message, path).toMatch(/refuses this path/);
    }
    expect(seen).toHaveLength(0);

    // A normal path, with an encoded space in a saved search's name, still goes through, as sent.
    const ok = await rawGet('/search-platform/admin/search/saved/searches/BGP%20down?output_mode=json');
    expect(ok.status).toBe(201);
    expect(seen.map((s) => s.url)).toEqual(['/servicesNS/admin/search/saved/searches/BGP%20down?output_mode=json']);
  });

  it('answers 502 when the upstream is unreachable and 504 when it does not answer in time', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { SEARCH_UPSTREAM_URL: 'http://127.0.0.1:9/x' } });
    const down = await relay.app.inject({ url: '/search-platform/services' });
    expect(down.statusCode).toBe(502);
    expect(down.json().error.code).toBe('upstream_unreachable');
    await relay.close();

    hang = true;
    relay = await relayForTest({ agent: createStubRuntime(), env: { SEARCH_UPSTREAM_URL: upstreamUrl, SEARCH_UPSTREAM_TIMEOUT_MS: '200' } });
    const slow = await relay.app.inject({ url: '/search-platform/services' });
    expect(slow.statusCode).toBe(504);
    expect(slow.json().error.code).toBe('upstream_timeout');
  });
});
