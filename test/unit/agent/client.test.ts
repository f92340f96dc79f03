import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentClient } from '../../../src/adapters/agent/client';
import type { RuntimeEvent } from '../../../src/core/agent-runtime';
import { runtimeFailure } from '../../helpers/runtime-failure';

// Failure modes the real runtime will not produce on demand (5xx, hangs, broken events) come
// from this loopback stand-in; the happy paths run against real opencode in test/integration.
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const password = 'unit-pass-9f3';
const endpoint = (url: string) => ({ url, username: 'opencode', password });

describe('agent client against a misbehaving runtime', () => {
  it('sends basic auth under the endpoint path and parses the answer', async () => {
    const seen: { url?: string; auth?: string } = {};
    const url = await serve((req, res) => {
      Object.assign(seen, { url: req.url, auth: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"healthy":true,"version":"9.9.9"}');
    });
    const client = createAgentClient(endpoint(`${url}/runtime/`));
    await expect(client.health()).resolves.toEqual({ healthy: true, version: '9.9.9' });
    expect(seen.url).toBe('/runtime/global/health');
    expect(seen.auth).toBe(`Basic ${Buffer.from(`opencode:${password}`).toString('base64')}`);
    await client.close();
  });

  it('reports a 5xx as a retryable server error with the runtime reason', async () => {
    const url = await serve((_req, res) =>
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"name":"Busy","data":{"message":"try later"}}'),
    );
    const client = createAgentClient(endpoint(url));
    const e = await runtimeFailure(client.createSession({ title: 'x' }));
    expect(e).toMatchObject({ kind: 'server', status: 503, retryable: true });
    expect(e.message).toContain('try later');
    await client.close();
  });

  it('times out when the runtime accepts but never answers', async () => {
    const url = await serve(() => {
      /* never answers */
    });
    const client = createAgentClient(endpoint(url), { timeouts: { headersMs: 200 } });
    const e = await runtimeFailure(client.health());
    expect(e.kind).toBe('timeout');
    await client.close();
  });

  it('rejects an answer of the wrong shape instead of passing it on', async () => {
    const url = await serve((_req, res) => res.writeHead(200).end('{"id":"not-a-session"}'));
    const client = createAgentClient(endpoint(url));
    const e = await runtimeFailure(client.getSession('ses_1'));
    expect(e.message).toMatch(/unexpected answer/);
    await client.close();
  });

  it('sends prompt_async with the agent and one text part', async () => {
    let body = '';
    let path = '';
    const url = await serve((req, res) => {
      path = req.url ?? '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.writeHead(204).end());
    });
    const client = createAgentClient(endpoint(url));
    await client.promptAsync('ses_a/b', { agent: 'network-troubleshooter', text: 'hello' });
    expect(path).toBe('/session/ses_a%2Fb/prompt_async');
    expect(JSON.parse(body)).toEqual({ agent: 'network-troubleshooter', parts: [{ type: 'text', text: 'hello' }] });
    await client.close();
  });
});

describe('event stream', () => {
  it('delivers valid events, skips broken ones, survives a throwing handler and reconnects when the stream ends', async () => {
    let connections = 0;
    const url = await serve((_req, res) => {
      connections++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (connections === 1) {
        res.write('data: {"type":"server.connected","properties":{}}\n\n');
        res.write('data: not json\n\n');
        res.write('data: {"no":"type"}\n\n');
        res.write('data: {"type":"boom","properties":{}}\n\n');
        res.end('data: {"type":"session.idle","properties":{"sessionID":"ses_1"}}\n\n');
      } else {
        res.write('data: {"type":"server.connected","properties":{}}\n\n');
      }
    });
    const client = createAgentClient(endpoint(url), { reconnectDelay: () => 0 });
    const ac = new AbortController();
    const events: RuntimeEvent[] = [];
    const statuses: { connected: boolean; error?: string }[] = [];
    let second!: () => void;
    const reconnected = new Promise<void>((r) => (second = r));
    const following = client.followEvents(
      (e) => {
        events.push(e);
        if (e.type === 'boom') throw new Error('handler bug');
        if (events.length === 4) second();
      },
      { signal: ac.signal, onStatus: (s) => statuses.push(s) },
    );
    await reconnected;
    ac.abort();
    await following;
    expect(events.map((e) => e.type)).toEqual(['server.connected', 'boom', 'session.idle', 'server.connected']);
    expect(events[2]!.properties).toEqual({ sessionID: 'ses_1' });
    expect(statuses.map((s) => s.connected)).toEqual([true, false, true, false]);
    expect(statuses[1]!.error).toMatch(/stream ended/);
    await client.close();
  });

  it('reports a rejected password on the stream without the password, and keeps trying', async () => {
    let attempts = 0;
    let third!: () => void;
    const tried = new Promise<void>((r) => (third = r));
    const url = await serve((_req, res) => {
      if (++attempts === 3) third();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="Secure Area"' }).end();
    });
    const client = createAgentClient(endpoint(url), { reconnectDelay: () => 0 });
    const ac = new AbortController();
    const statuses: { connected: boolean; error?: string }[] = [];
    const following = client.followEvents(() => {}, { signal: ac.signal, onStatus: (s) => statuses.push(s) });
    await tried;
    ac.abort();
    await following;
    expect(statuses[0]).toMatchObject({ connected: false });
    expect(statuses[0]!.error).toContain('HTTP 401');
    expect(JSON.stringify(statuses)).not.toContain(password);
    await client.close();
  });

  it('gives up on a connection that is accepted but never answered and connects again', async () => {
    // A starting opencode accepts connections for a moment without ever serving them.
    let connections = 0;
    const url = await serve((_req, res) => {
      if (++connections === 1) return;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"server.connected","properties":{}}\n\n');
    });
    const client = createAgentClient(endpoint(url), { reconnectDelay: () => 0, timeouts: { eventHeadersMs: 200 } });
    const ac = new AbortController();
    const statuses: { connected: boolean; error?: string }[] = [];
    const following = new Promise<void>((resolve) => {
      void client.followEvents(
        (e) => {
          if (e.type === 'server.connected') ac.abort();
        },
        { signal: ac.signal, onStatus: (s) => statuses.push(s) },
      ).then(resolve);
    });
    await following;
    expect(connections).toBe(2);
    expect(statuses[0]).toMatchObject({ connected: false });
    expect(statuses[0]!.error).toMatch(/timed out/);
    expect(statuses[1]).toEqual({ connected: true });
    await client.close();
  });
});
