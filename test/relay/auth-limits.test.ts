import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { newToken } from '../../src/core/operators/operators';
import type { Relay } from '../../src/relay/create-relay';
import { captureLogger } from '../helpers/capture-logger';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { manualClock } from '../unit/incidents/in-memory-incidents';

const SECRET = 'limits-webhook-secret-31';
const TOOLS = 'limits-tools-token-59';
const vic = newToken();
const ana = newToken();
const GUESS = 'guess-0000-not-a-token';

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

async function start(env: Record<string, string> = {}) {
  const file = join(tempDir('fault-relay-limits-'), 'operators.yaml');
  writeFileSync(file, stringify({
      operators: [
        { name: 'Victor Li', email: 'vic@example.net', role: 'viewer', token_sha256: vic.sha256 },
        { name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: ana.sha256 },
      ],
    }),
  );
  const clock = manualClock();
  const log = captureLogger();
  relay = await relayForTest({ agent: createStubRuntime(), clock, logger: log.logger, env: { WEBHOOK_SECRET: SECRET, RELAY_TOOLS_TOKEN: TOOLS, OPERATORS_FILE: file, ...env } });
  return { relay, clock, log };
}

const sessions = (token: string | undefined, remoteAddress: string, headers: Record<string, string> = {}) =>
  relay!.app.inject({ url: '/sessions', remoteAddress, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
const warnings = (log: ReturnType<typeof captureLogger>) => log.lines.map((l) => JSON.parse(l) as { level: number; msg: string; source?: string }).filter((l) => l.level === 40 && l.source !== undefined);

describe('failed authentication is limited per source', () => {
  it('never refuses a right credential for the wrong ones sent from its address (a NAT, Splunk\'s forwarder)', async () => {
    const { relay } = await start();
    const shared = '198.51.100.20';
    const wrong = [];
    for (let i = 0; i < 20; i++) wrong.push((await sessions(`${GUESS}${i}`, shared)).statusCode);
    expect(wrong.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(wrong.slice(10)).toEqual(Array(10).fill(429));

    // Splunk's alert with the webhook secret, from the same address, is taken.
    const alert = await relay.app.inject({ method: 'POST', url: '/fault-alert', remoteAddress: shared, headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) });
    expect(alert.statusCode).toBe(202);
    const id = alert.json().incident_id as string;
    // An approver's own token, from the same address: reads, and the decision route answers on its merits.
    expect((await sessions(ana.token, shared)).statusCode).toBe(200);
    const decision = await relay.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, remoteAddress: shared, headers: { authorization: `Bearer ${ana.token}` }, payload: { decision: 'APPROVED', request_id: 'REQ-none' } });
    expect(decision.statusCode).not.toBe(429);
    expect(decision.statusCode).not.toBe(401);
    expect(decision.json().error.code).toBe('stale_request');

    // The wrong ones are still refused: 429 with Retry-After, in the documented shape.
    const limited = await sessions(GUESS, shared);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.json()).toEqual({ error: { code: 'too_many_attempts', message: expect.stringContaining('try again in 60 s') } });
  });

  it('answers the 11th wrong attempt from one source 429 with Retry-After, logs one warning, and leaves other sources alone', async () => {
    const { clock, log } = await start();
    const attacker = '198.51.100.10';
    for (let i = 0; i < 10; i++) expect((await sessions(`${GUESS}${i}`, attacker)).statusCode).toBe(401);

    const limited = await sessions(GUESS, attacker);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.json()).toEqual({ error: { code: 'too_many_attempts', message: expect.stringContaining('try again in 60 s') } });
    // A right credential from the same source is answered on its merits.
    expect((await sessions(SECRET, attacker)).statusCode).toBe(200);

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
    expect((await sessions(GUESS, attacker)).statusCode).toBe(401);
  });

  it('limits one wrong credential however many addresses send it', async () => {
    await start();
    for (let i = 0; i < 10; i++) expect((await sessions(GUESS, `203.0.113.${i + 1}`)).statusCode).toBe(401);
    expect((await sessions(GUESS, '203.0.113.50')).statusCode).toBe(429);
    expect((await sessions(`${GUESS}x`, '203.0.113.50')).statusCode).toBe(401);
    expect((await sessions(SECRET, '203.0.113.50')).statusCode).toBe(200);
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
    const res = await relay.app.inject({ method: 'POST', url: '/mcp', ...from, headers: { authorization: `Bearer ${GUESS}-next` }, payload: {} });
    expect(res.statusCode).toBe(429);
    // The right tool token still reaches the tools.
    const tools = await relay.app.inject({ method: 'POST', url: '/mcp', ...from, headers: { authorization: `Bearer ${TOOLS}` }, payload: {} });
    expect([401, 429]).not.toContain(tools.statusCode);
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
    expect((await viaProxy('203.0.113.1', `${GUESS}-next`)).statusCode).toBe(429);
    // Another client behind the same proxy is its own source.
    expect((await viaProxy('203.0.113.2', `${GUESS}-other`)).statusCode).toBe(401);

    // An untrusted peer's X-Forwarded-For is ignored: changing it does not make a new source.
    for (let i = 0; i < 10; i++) expect((await sessions(`${GUESS}u${i}`, '192.0.2.70', { 'x-forwarded-for': `203.0.113.${100 + i}` })).statusCode).toBe(401);
    expect((await sessions(`${GUESS}u`, '192.0.2.70', { 'x-forwarded-for': '203.0.113.200' })).statusCode).toBe(429);
  });
});
