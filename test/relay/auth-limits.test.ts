import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { newToken } from '../../src/operators/operators';
import type { Relay } from '../../src/relay/create-relay';
import { captureLogger } from '../helpers/capture-logger';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { manualClock } from '../unit/incidents/in-memory-incidents';

const SECRET = 'limits-webhook-secret-31';
const TOOLS = 'limits-tools-token-59';
const vic = newToken();
const GUESS = 'guess-0000-not-a-token';

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

async function start(env: Record<string, string> = {}) {
  const file = join(tempDir('fault-relay-limits-'), 'operators.yaml');
  writeFileSync(file, stringify({ operators: [{ name: 'Victor Li', email: 'vic@example.net', role: 'viewer', token_sha256: vic.sha256 }] }));
  const clock = manualClock();
  const log = captureLogger();
  relay = await relayForTest({ agent: createStubRuntime(), clock, logger: log.logger, env: { WEBHOOK_SECRET: SECRET, RELAY_TOOLS_TOKEN: TOOLS, OPERATORS_FILE: file, ...env } });
  return { relay, clock, log };
}

const sessions = (token: string | undefined, remoteAddress: string, headers: Record<string, string> = {}) =>
  relay!.app.inject({ url: '/sessions', remoteAddress, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
const warnings = (log: ReturnType<typeof captureLogger>) => log.lines.map((l) => JSON.parse(l) as { level: number; msg: string; source?: string }).filter((l) => l.level === 40 && l.source !== undefined);

describe('failed authentication is limited per source', () => {
  it('answers the 11th attempt from one source 429 with Retry-After, logs one warning, and leaves other sources alone', async () => {
    const { clock, log } = await start();
    const attacker = '198.51.100.10';
    for (let i = 0; i < 10; i++) expect((await sessions(`${GUESS}${i}`, attacker)).statusCode).toBe(401);

    const limited = await sessions(GUESS, attacker);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.json()).toEqual({ error: { code: 'too_many_attempts', message: expect.stringContaining('try again in 60 s') } });
    // Its guess is not even looked at: a right one is answered the same.
    expect((await sessions(SECRET, attacker)).statusCode).toBe(429);

    expect((await sessions(GUESS, '198.51.100.11')).statusCode).toBe(401);
    expect((await sessions(SECRET, '198.51.100.12')).statusCode).toBe(200);
    expect((await sessions(vic.token, '198.51.100.13')).statusCode).toBe(200);

    clock.advance(30_000);
    expect((await sessions(GUESS, attacker)).headers['retry-after']).toBe('30');
    const lines = warnings(log);
    expect(lines).toEqual([expect.objectContaining({ source: attacker, msg: expect.stringMatching(/10 failed authentications from 198\.51\.100\.10/) })]);
    expect(log.text()).not.toContain(GUESS);
    expect(log.text()).not.toContain(SECRET);

    clock.advance(30_000);
    expect((await sessions(SECRET, attacker)).statusCode).toBe(200);
  });

  it('counts failures on every route and credential: tool token, personal token, UI cookie, UI login', async () => {
    const { relay } = await start();
    const from = { remoteAddress: '192.0.2.50' };
    const tries = [
      () => relay.app.inject({ method: 'POST', url: '/mcp', ...from, headers: { authorization: `Bearer ${GUESS}` }, payload: {} }),
      () => relay.app.inject({ method: 'POST', url: '/device-mcp', ...from, headers: { authorization: `Bearer ${GUESS}` }, payload: {} }),
      () => relay.app.inject({ method: 'POST', url: '/incidents/INC-1/decision', ...from, headers: { authorization: `Bearer ${GUESS}` }, payload: { decision: 'APPROVED', request_id: 'r' } }),
      () => relay.app.inject({ url: '/ui/', ...from, headers: { cookie: 'fault_relay_ui=v2.99999999999999.eA.viewer.forgedforgedforgedforgedforgedforgedforged1' } }),
      () => relay.app.inject({ url: `/ui?token=${GUESS}`, ...from }),
      () => relay.app.inject({ url: '/health/deep', ...from, headers: { authorization: `Bearer ${GUESS}` } }),
    ];
    let refused = 0;
    for (let i = 0; refused < 10; i++) {
      const res = await tries[i % tries.length]!();
      // The decision route checks its body first (400) on some trees: only refusals count.
      if (res.statusCode === 401) refused++;
    }
    const res = await relay.app.inject({ method: 'POST', url: '/mcp', ...from, headers: { authorization: `Bearer ${TOOLS}` }, payload: {} });
    expect(res.statusCode).toBe(429);
  });

  it('does not count requests that offer no credential (a browser before its login)', async () => {
    const { relay } = await start();
    for (let i = 0; i < 15; i++) expect((await sessions(undefined, '192.0.2.60')).statusCode).toBe(401);
    expect((await sessions(SECRET, '192.0.2.60')).statusCode).toBe(200);
    expect((await relay.app.inject({ url: '/health', remoteAddress: '192.0.2.60' })).statusCode).toBe(200);
  });

  it('takes the source from X-Forwarded-For only when the peer is a trusted proxy', async () => {
    await start({ RELAY_TRUSTED_PROXY: '10.0.0.1' });
    const viaProxy = (client: string, token: string) => sessions(token, '10.0.0.1', { 'x-forwarded-for': client });
    for (let i = 0; i < 10; i++) expect((await viaProxy('203.0.113.1', GUESS)).statusCode).toBe(401);
    expect((await viaProxy('203.0.113.1', GUESS)).statusCode).toBe(429);
    // Another client behind the same proxy is its own source.
    expect((await viaProxy('203.0.113.2', SECRET)).statusCode).toBe(200);

    // An untrusted peer's X-Forwarded-For is ignored: changing it does not make a new source.
    for (let i = 0; i < 10; i++) expect((await sessions(GUESS, '192.0.2.70', { 'x-forwarded-for': `203.0.113.${100 + i}` })).statusCode).toBe(401);
    expect((await sessions(GUESS, '192.0.2.70', { 'x-forwarded-for': '203.0.113.200' })).statusCode).toBe(429);
  });
});
