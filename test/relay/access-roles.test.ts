import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { newToken } from '../../src/core/operators/operators';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';

const SECRET = 'roles-webhook-secret-77';
const ana = newToken();
const vic = newToken();
const ANA = { name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: ana.sha256 };
const VIC = { name: 'Victor Li', email: 'vic@example.net', role: 'viewer', token_sha256: vic.sha256 };

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const writeOperators = (path: string, operators: object[]) => writeFileSync(path, stringify({ operators }));

async function start(env: Record<string, string> = {}) {
  const file = join(tempDir('fault-relay-roles-'), 'operators.yaml');
  writeOperators(file, [ANA, VIC]);
  relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET, OPERATORS_FILE: file, ...env } });
  return { relay, file };
}

/** `/ui?token=` traded for the cookie; returns the whole Set-Cookie line. */
async function login(token: string, opts: { headers?: Record<string, string>; remoteAddress?: string } = {}) {
  const res = await relay!.app.inject({ url: `/ui?token=${encodeURIComponent(token)}`, ...opts });
  expect(res.statusCode).toBe(303);
  return String(res.headers['set-cookie']);
}
const cookieOf = (setCookie: string) => setCookie.split(';')[0] as string;

const json = { 'content-type': 'application/json' };
const headed = (headers: Record<string, string>) => relay!.app.inject({ method: 'POST', url: '/headed', headers: { ...json, ...headers }, payload: JSON.stringify(ad000002()) });
const headedFrom = (id: string, headers: Record<string, string>) => relay!.app.inject({ method: 'POST', url: `/headed/from/${id}`, headers });
const directPrompt = (headers: Record<string, string>) =>
  relay!.app.inject({ method: 'POST', url: '/ui/api/direct-prompt', headers: { ...json, ...headers }, payload: JSON.stringify({ alert_def_id: 'AD000002', device: 'R1', mode: 'strict', vars: {} }) });

describe('a cookie carries its person and role', () => {
  it('a viewer reads with cookie or token but never creates a headed incident or starts a run (403 not_an_approver)', async () => {
    const { relay } = await start();
    const existing = (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { ...json, authorization: `Bearer ${SECRET}` }, payload: JSON.stringify(ad000002()) })).json().incident_id as string;
    const viewer = { cookie: cookieOf(await login(vic.token)) };
    const before = relay.incidents.list().length;

    expect((await relay.app.inject({ url: '/sessions', headers: viewer })).statusCode).toBe(200);
    expect((await relay.app.inject({ url: `/sessions/${existing}`, headers: viewer })).statusCode).toBe(200);
    for (const res of [await headed(viewer), await headedFrom(existing, viewer), await directPrompt(viewer), await headed({ authorization: `Bearer ${vic.token}` })]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: { code: 'not_an_approver', message: expect.stringMatching(/^vic@example\.net is a viewer/) } });
    }
    expect(relay.incidents.list()).toHaveLength(before);
  });

  it('an approver\'s cookie and token, and the shared secret\'s cookie, do create and start', async () => {
    await start();
    const approver = { cookie: cookieOf(await login(ana.token)) };
    const made = await headed(approver);
    expect(made.statusCode).toBe(201);
    expect((await headedFrom(made.json().incident_id as string, approver)).statusCode).toBe(201);
    expect((await directPrompt(approver)).statusCode).toBe(200);
    expect((await headed({ authorization: `Bearer ${ana.token}` })).statusCode).toBe(201);
    expect((await headed({ cookie: cookieOf(await login(SECRET)) })).statusCode).toBe(201);
  });

  it('a wrong token at login or as bearer is refused even beside a good cookie', async () => {
    const { relay } = await start();
    const viewer = cookieOf(await login(vic.token));
    // Else a viewer could try approvers' tokens and read the answer (201 or 403) without any 401.
    expect((await relay.app.inject({ url: `/ui?token=${newToken().token}`, headers: { cookie: viewer } })).statusCode).toBe(401);
    expect((await headed({ cookie: viewer, authorization: `Bearer ${newToken().token}` })).statusCode).toBe(401);
    expect((await relay.app.inject({ url: '/sessions', headers: { cookie: `${viewer.slice(0, -3)}AAA` } })).statusCode).toBe(401);
  });
});

describe('OPERATORS_FILE is followed while the relay runs', () => {
  it('removing a person ends their cookie and token at their next request', async () => {
    const { relay, file } = await start();
    const cookie = cookieOf(await login(ana.token));
    expect((await relay.app.inject({ url: '/sessions', headers: { cookie } })).statusCode).toBe(200);

    writeOperators(file, [VIC]);
    for (const headers of [{ cookie }, { authorization: `Bearer ${ana.token}` }]) {
      const res = await relay.app.inject({ url: '/sessions', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    }
    expect((await headed({ cookie })).statusCode).toBe(401);
    // Others' sessions go on.
    expect((await relay.app.inject({ url: '/sessions', headers: { authorization: `Bearer ${vic.token}` } })).statusCode).toBe(200);
  });

  it('a role change holds at once both ways, and a new token ends the sessions made with the old one', async () => {
    const { relay, file } = await start();
    const anaCookie = { cookie: cookieOf(await login(ana.token)) };
    const vicCookie = { cookie: cookieOf(await login(vic.token)) };
    writeOperators(file, [{ ...ANA, role: 'viewer' }, { ...VIC, role: 'approver' }]);
    expect((await headed(anaCookie)).statusCode).toBe(403);
    expect((await headed(vicCookie)).statusCode).toBe(201);

    // Same size, written at once: the reload must not rest on the size or a coarse mtime alone.
    const rotated = newToken();
    writeOperators(file, [{ ...ANA, role: 'viewer' }, { ...VIC, role: 'approver', token_sha256: rotated.sha256 }]);
    expect((await relay.app.inject({ url: '/sessions', headers: vicCookie })).statusCode).toBe(401);
    expect((await relay.app.inject({ url: '/sessions', headers: { authorization: `Bearer ${rotated.token}` } })).statusCode).toBe(200);
  });

  it('a file made invalid lets no personal token in (the shared secret still works) until it is fixed', async () => {
    const { relay, file } = await start();
    writeFileSync(file, 'operators: [ {name: broken');
    expect((await relay.app.inject({ url: '/sessions', headers: { authorization: `Bearer ${vic.token}` } })).statusCode).toBe(401);
    expect((await relay.app.inject({ url: '/sessions', headers: { authorization: `Bearer ${SECRET}` } })).statusCode).toBe(200);
    writeOperators(file, [VIC]);
    expect((await relay.app.inject({ url: '/sessions', headers: { authorization: `Bearer ${vic.token}` } })).statusCode).toBe(200);
  });
});

describe('Secure cookies behind a trusted TLS proxy', () => {
  const httpsProxy = { 'x-forwarded-proto': 'https' };

  it('marks the cookie Secure only for X-Forwarded-Proto: https from an address in RELAY_TRUSTED_PROXY', async () => {
    await start({ RELAY_TRUSTED_PROXY: 'loopback, 10.20.0.0/16' });
    expect(await login(vic.token, { headers: httpsProxy })).toMatch(/; Secure$/);
    expect(await login(vic.token, { headers: httpsProxy, remoteAddress: '10.20.3.4' })).toMatch(/; Secure$/);
    expect(await login(vic.token, { headers: { 'x-forwarded-proto': 'http' } })).not.toMatch(/Secure/);
    // Anyone else may send the header: it is not believed.
    expect(await login(vic.token, { headers: httpsProxy, remoteAddress: '203.0.113.9' })).not.toMatch(/Secure/);
  });

  it('without RELAY_TRUSTED_PROXY the header is never believed', async () => {
    await start();
    expect(await login(SECRET, { headers: httpsProxy })).not.toMatch(/Secure/);
  });

  it('refuses a RELAY_TRUSTED_PROXY entry that is not an address, a CIDR or a named range', async () => {
    await expect(start({ RELAY_TRUSTED_PROXY: 'loopback, proxy.example.net' })).rejects.toThrow(/RELAY_TRUSTED_PROXY: "proxy\.example\.net" is not an address/);
  });
});
