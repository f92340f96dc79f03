import { connect } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { errorBodySchema, installClosingAnswer, installErrorHandler } from '../../src/relay/errors';
import { routesOf } from '../../src/relay/route-errors';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

const SECRET = 'shapes-webhook-secret-13';
const TOOLS = 'shapes-tools-token-29';
let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const start = async () => (relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET, RELAY_TOOLS_TOKEN: TOOLS } }));

/** The documented shape, and nothing else at the top level but what a route adds on purpose. */
function expectShape(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  const body = JSON.parse(res.body) as unknown;
  expect(errorBodySchema.strict().parse(body).error.code).toBe(code);
}

const tools = { authorization: `Bearer ${TOOLS}` };
const mcpAccept = { ...tools, accept: 'application/json, text/event-stream' };

describe('every error body is {"error": {code, message, details?}}', () => {
  it('on the MCP routes: token, method, Accept, media type, a body that is not JSON-RPC, unknown paths', async () => {
    const relay = await start();
    const inject = relay.app.inject.bind(relay.app);
    for (const url of ['/mcp', '/device-mcp']) {
      expectShape(await inject({ method: 'POST', url, payload: {} }), 401, 'unauthorized');
      expectShape(await inject({ method: 'POST', url, headers: { authorization: 'Bearer wrong' }, payload: {} }), 401, 'unauthorized');
      const get = await inject({ url, headers: tools });
      expectShape(get, 405, 'method_not_allowed');
      expect(get.headers.allow).toBe('POST, DELETE');
      expectShape(await inject({ method: 'PUT', url, headers: tools, payload: {} }), 405, 'method_not_allowed');
      expectShape(await inject({ method: 'POST', url, headers: tools, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }), 406, 'not_acceptable');
      expectShape(await inject({ method: 'POST', url, headers: { ...mcpAccept, 'content-type': 'text/plain' }, payload: 'tools/list' }), 415, 'unsupported_media_type');
      expectShape(await inject({ method: 'POST', url, headers: mcpAccept, payload: { not: 'json-rpc' } }), 400, 'invalid_body');
      expectShape(await inject({ method: 'POST', url, headers: { ...mcpAccept, 'content-type': 'application/json' }, payload: '{"jsonrpc":' }), 400, 'invalid_json');
      expectShape(await inject({ method: 'POST', url: `${url}/extra`, headers: tools }), 404, 'not_found');
    }
    // JSON-RPC answers themselves pass unchanged.
    const init = await inject({
      method: 'POST',
      url: '/mcp',
      headers: mcpAccept,
      payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    });
    expect(init.statusCode).toBe(200);
    expect(init.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'fault-relay' } } });
  });

  it('is what every route declares for its 4xx and 5xx answers', async () => {
    const relay = await start();
    const routes = routesOf(relay.app);
    // The routes that stream or speak another protocol are among them, not left out.
    expect(routes.map((r) => r.url)).toEqual(expect.arrayContaining(['/events', '/mcp', '/device-mcp', '/metrics', '/search-platform', '/search-platform/*', '/health', '/ui/*']));
    expect(routes.filter((r) => !r.declaresErrors).map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  it('on the event stream, the metrics, the health checks and the search proxy: credentials, Host, a path it refuses, no upstream', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET, RELAY_TOOLS_TOKEN: TOOLS, SEARCH_UPSTREAM_URL: 'http://127.0.0.1:1' } });
    const inject = relay.app.inject.bind(relay.app);
    const secret = { authorization: `Bearer ${SECRET}` };
    for (const url of ['/events', '/metrics', '/health/deep', '/search-platform/services/search/jobs']) {
      expectShape(await inject({ url }), 401, 'unauthorized');
      expectShape(await inject({ url, headers: { authorization: 'Bearer wrong' } }), 401, 'unauthorized');
      expectShape(await inject({ url, headers: { ...secret, host: 'attacker.example' } }), 421, 'host_not_allowed');
    }
    expectShape(await inject({ url: '/search-platform/..%2fadmin', headers: secret }), 400, 'invalid_path');
    expectShape(await inject({ url: '/search-platform/services', headers: secret }), 502, 'upstream_unreachable');
    // The metrics themselves are Prometheus text, not an error body.
    expect((await inject({ url: '/metrics', headers: secret })).statusCode).toBe(200);
    await relay.close();
    const unconfigured = await start();
    expectShape(await unconfigured.app.inject({ url: '/search-platform/services', headers: secret }), 503, 'proxy_not_configured');
  });

  it('on unknown routes and malformed or escaping URLs', async () => {
    const relay = await start();
    const secret = { authorization: `Bearer ${SECRET}` };
    expectShape(await relay.app.inject({ url: '/no-such-route' }), 404, 'not_found');
    expectShape(await relay.app.inject({ method: 'OPTIONS', url: '/sessions' }), 404, 'not_found');
    expectShape(await relay.app.inject({ url: '/%E0%A4%A' }), 400, 'invalid_url');
    expectShape(await relay.app.inject({ url: '/sessions/%E0%A4%A', headers: secret }), 400, 'invalid_url');
    expectShape(await relay.app.inject({ url: '/ui/..%2f..', headers: secret }), 400, 'bad_path');
    expectShape(await relay.app.inject({ url: '/ui/..%2f..' }), 401, 'unauthorized');
    expectShape(await relay.app.inject({ url: `/sessions/${'x'.repeat(70)}`, headers: secret }), 400, 'invalid_params');
    expectShape(await relay.app.inject({ url: `/sessions/${'x'.repeat(120)}`, headers: secret }), 414, 'uri_too_long');
  });

  it('on requests Node refuses or answers before any route (not HTTP, headers too large, no Host, an unknown Expect)', async () => {
    const relay = await start();
    const url = new URL(await relay.listen({ port: 0, host: '127.0.0.1' }));
    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.end(text));
        let answer = '';
        socket.on('data', (chunk) => (answer += String(chunk)));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    const parse = (answer: string) => ({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]), body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown });

    const garbage = parse(await raw('NOT HTTP AT ALL\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expect(errorBodySchema.strict().parse(garbage.body).error.code).toBe('bad_request');
    const huge = parse(await raw(`GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(huge.status).toBe(431);
    expect(errorBodySchema.strict().parse(huge.body).error.code).toBe('headers_too_large');
    // Node's own early answers: no Host on HTTP/1.1, and an Expect it does not know.
    const noHost = parse(await raw('GET /health HTTP/1.1\r\nConnection: close\r\n\r\n'));
    expect(noHost.status).toBe(400);
    expect(errorBodySchema.strict().parse(noHost.body).error.code).toBe('missing_host');
    const expectation = parse(await raw('POST /fault-alert HTTP/1.1\r\nHost: localhost\r\nExpect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'));
    expect(expectation.status).toBe(417);
    expect(errorBodySchema.strict().parse(expectation.body).error.code).toBe('expectation_failed');
    // 100-continue keeps working: the alert route answers as usual.
    const continued = await raw('GET /health HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
    expect(continued).toMatch(/^HTTP\/1\.1 (100 Continue\r\n\r\nHTTP\/1\.1 )?200 /);
  });

  it('while the relay closes: a request still arriving on an open connection gets 503 shutting_down', async () => {
    // A bare app with the relay's handlers: a held request keeps its connection open through close().
    const app = Fastify({ return503OnClosing: false });
    const signal = () => {
      let fire!: () => void;
      const fired = new Promise<void>((r) => (fire = r));
      return { fire, fired };
    };
    const held = signal();
    const closing = signal();
    const nextArrived = signal();
    app.addHook('onRequest', (request, _reply, done) => (request.url === '/next' && nextArrived.fire(), done()));
    installErrorHandler(app);
    installClosingAnswer(app);
    let release!: () => void;
    app.get('/hold', () => new Promise((r) => ((release = () => r({ ok: true })), held.fire())));
    app.get('/next', async () => ({ ok: true }));
    app.addHook('preClose', (done) => (closing.fire(), done()));
    const url = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));

    let text = '';
    const socket = connect(Number(url.port), url.hostname, () => socket.write('GET /hold HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    socket.on('data', (chunk) => (text += String(chunk)));
    const ended = new Promise<void>((resolve, reject) => (socket.on('close', () => resolve()), socket.on('error', reject)));
    await held.fired;
    const closed = app.close();
    await closing.fired;
    // The second request is sent, and read, only once the app is closing.
    socket.write('GET /next HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await nextArrived.fired;
    release();
    await ended;
    await closed;
    const second = text.slice(text.indexOf('HTTP/1.1', 10));
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4))).toEqual({ error: { code: 'shutting_down', message: expect.any(String) } });
  });
});
