import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptFor } from '../helpers/prompt';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { loadConfig } from '../../src/config/load';
import { createBus } from '../../src/core/events/bus';
import type { RelayEvents } from '../../src/core/incidents/events';
import type { Incident } from '../../src/core/incidents/model';
import { createMemoryBackend, createPersistentStore } from '../../src/core/incidents/persistent-store';
import { createIncidents } from '../../src/core/incidents/service';
import { bearerGuard } from '../../src/relay/auth';
import { installErrorHandler } from '../../src/relay/errors';
import { uiRoutes } from '../../src/relay/routes/ui';
import { createHeadedIntake } from '../../src/relay/headed-intake';
import { createUiSession, UI_COOKIE } from '../../src/relay/ui-session';
import { redactUrl as redactUiToken } from '../../src/adapters/log/logger';
import { repoRoot } from '../helpers/opencode';
import { silent } from '../helpers/relay';
import { createManualClock } from '../unit/messaging/helpers';
import { testLogDir } from '../helpers/log-dir';

const SECRET = 'ui-secret-3f9a1c';
const NOW = new Date('2026-11-21T10:00:00.000Z');
const tmp = mkdtempSync(join(tmpdir(), 'ui-routes-'));
const dist = join(tmp, 'dist');
const logs = join(tmp, 'logs');
const clock = createManualClock(NOW.getTime());
let app: FastifyInstance;
let incident: Incident;
let incidents: ReturnType<typeof createIncidents>;
let other: Incident;

beforeAll(async () => {
  mkdirSync(join(dist, 'assets'), { recursive: true });
  mkdirSync(logs, { recursive: true });
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Fault Relay</title>');
  writeFileSync(join(dist, 'assets', 'index-Ab12Cd34.js'), 'console.log(1)');
  writeFileSync(join(dist, 'assets', 'index-Ab12Cd34.css'), 'body{}');
  writeFileSync(join(tmp, 'outside.js'), 'secret()');

  const store = createPersistentStore({ backend: createMemoryBackend(), retention: 100, logger: silent });
  incidents = createIncidents({ store, bus: createBus<RelayEvents>(), clock, logger: silent });
  const fields = { alert_def_id: 'AD000002', mode: 'strict' as const, warnings: [], alert_vars: {}, promptTextFor: () => 'p' };
  incident = incidents.create({ ...fields, device_hostname: 'R1', dedup_key: 'a' });
  other = incidents.create({ ...fields, device_hostname: 'R2', dedup_key: 'b' });
  writeFileSync(join(logs, `${incident.incident_id}.md`), '# the session log\n');

  const config = loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'runtime-pw-77', WEBHOOK_SECRET: SECRET, RELAY_LOG_DIR: testLogDir() });
  const session = createUiSession({ secret: SECRET, clock, maxAgeMs: 60_000 });
  app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  await app.register(async (scope) => {
    // What the lead's bearerGuard does once it takes the cookie: the session first, then the header.
    const guard = bearerGuard(SECRET);
    scope.addHook('onRequest', async (request) => {
      if (!session.accepts(request)) await guard(request);
    });
    scope.get('/sessions', async () => ({ ok: true }));
    await scope.register(uiRoutes, {
      incidents,
      config,
      artifactsDir: join(repoRoot, 'intelligence-artifacts'),
      distDir: dist,
      sessionLogPath: (i) => join(logs, `${i.incident_id}.md`),
      session,
      now: () => NOW,
      startHeaded: createHeadedIntake({ incidents, mode: 'strict', logger: silent }),
    });
  });
});
afterAll(async () => {
  await app?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${SECRET}` };

describe('/ui static files', () => {
  it('serves the page with its CSP, and hashed assets with their type, cached for good', async () => {
    const page = await app.inject({ url: '/ui/', headers: auth });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body).toContain('<title>Fault Relay</title>');

    const js = await app.inject({ url: '/ui/assets/index-Ab12Cd34.js', headers: auth });
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    const css = await app.inject({ url: '/ui/assets/index-Ab12Cd34.css', headers: auth });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('/ui without the slash redirects, so the page\'s relative asset paths resolve', async () => {
    const res = await app.inject({ url: '/ui', headers: auth });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/ui/');
  });

  it.each(['/ui/..%2foutside.js', '/ui/%2e%2e/outside.js', '/ui/assets/%2e%2e%2f%2e%2e%2foutside.js', '/ui/assets/..%5c..%5coutside.js'])(
    'refuses %s without reading outside the build',
    async (url) => {
      const res = await app.inject({ url, headers: auth });
      expect([400, 404]).toContain(res.statusCode);
      expect(res.body).not.toContain('secret()');
    },
  );

  it('answers 404 for a file that is not there', async () => {
    expect((await app.inject({ url: '/ui/assets/nope-12345678.js', headers: auth })).statusCode).toBe(404);
  });
});

describe('browser session', () => {
  it('refuses the page without the bearer or a cookie', async () => {
    expect((await app.inject({ url: '/ui/' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/ui?token=wrong' })).statusCode).toBe(401);
  });

  it('/ui?token= sets an HttpOnly SameSite=Strict cookie and drops the token from the address; the cookie opens the data', async () => {
    const login = await app.inject({ url: `/ui?token=${SECRET}` });
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe('/ui/');
    const setCookie = String(login.headers['set-cookie']);
    expect(setCookie).toMatch(new RegExp(`^${UI_COOKIE}=v2\\.`));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain(SECRET);
    const cookie = setCookie.split(';')[0] as string;
    expect((await app.inject({ url: '/sessions', headers: { cookie } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/ui/', headers: { cookie: `other=1; ${cookie}` } })).statusCode).toBe(200);
  });

  it('refuses a tampered or expired cookie', async () => {
    const login = await app.inject({ url: `/ui?token=${SECRET}` });
    const cookie = String(login.headers['set-cookie']).split(';')[0] as string;
    const tampered = cookie.replace(/\.(\d+)\./, (_m, exp: string) => `.${Number(exp) + 1}.`);
    expect((await app.inject({ url: '/sessions', headers: { cookie: tampered } })).statusCode).toBe(401);
    clock.advance(61_000);
    expect((await app.inject({ url: '/sessions', headers: { cookie } })).statusCode).toBe(401);
  });

  it('redacts the token in URLs for the request log', () => {
    expect(redactUiToken(`/ui?token=${SECRET}`)).toBe('/ui?token=[redacted]');
    expect(redactUiToken(`/ui?x=1&token=${SECRET}&y=2`)).toBe('/ui?x=1&token=[redacted]&y=2');
    expect(redactUiToken('/ui/assets/a.js')).toBe('/ui/assets/a.js');
  });
});

describe('/ui/api', () => {
  it('builds the same prompt as the simulator for the same inputs', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/ui/api/direct-prompt',
      headers: auth,
      payload: { alert_def_id: 'AD000002', device: 'R7', mode: 'hybrid', vars: { neighbor_ip: '10.9.9.2', neighbor_as: '65010' } },
    });
    expect(res.statusCode).toBe(200);
    const { prompt, incident_id } = res.json();
    // Copying the prompt made the headed incident: the gate knows it before anything is pasted.
    expect(incidents.get(incident_id)).toMatchObject({ kind: 'headed', state: 'running', device_hostname: 'R7', mode: 'hybrid' });
    const expected = promptFor(buildSplunkAlert({ device: 'R7', neighbor: '10.9.9.2', neighborAs: '65010', now: NOW }), incident_id, 'hybrid');
    expect(prompt).toBe(expected);
  });

  it('refuses a caller-chosen headed incident id: ids are the relay\'s', async () => {
    const before = incidents.list().length;
    const res = await app.inject({
      method: 'POST',
      url: '/ui/api/direct-prompt',
      headers: auth,
      payload: { alert_def_id: 'AD000002', device: 'R7', mode: 'strict', incident_id: 'HEADED-T1', vars: {} },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/assigned by the relay/);
    expect(incidents.list()).toHaveLength(before);
  });

  it('leaves out a variable sent empty and adds one the sample does not have', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/ui/api/direct-prompt',
      headers: auth,
      payload: { alert_def_id: 'AD000003', device: 'R2', mode: 'strict', vars: { interface: 'Gi0/1', neighbor_ip: '', neighbor_as: '' } },
    });
    const prompt = JSON.parse(res.json().prompt.slice(res.json().prompt.indexOf('{')));
    expect(prompt.alert_vars.interface).toBe('Gi0/1');
    expect(prompt.alert_vars).not.toHaveProperty('neighbor_ip');
    expect(prompt.alert_vars).not.toHaveProperty('neighbor_as');
    expect(prompt.incident_id).toMatch(/^HEADED-\d{8}T\d{6}Z(-\d+)?$/);
  });

  it('refuses bad input with the field paths', async () => {
    const post = (payload: object) => app.inject({ method: 'POST', url: '/ui/api/direct-prompt', headers: auth, payload });
    const noDevice = await post({ alert_def_id: 'AD000002', device: '', mode: 'strict', vars: {} });
    expect(noDevice.statusCode).toBe(400);
    expect(noDevice.json().error.details.map((d: { path: string }) => d.path)).toContain('device');
    const reserved = await post({ alert_def_id: 'AD000002', device: 'R1', mode: 'strict', vars: { system: 'R9' } });
    expect(reserved.statusCode).toBe(400);
    expect(reserved.json().error.message).toContain('system');
    const badIp = await post({ alert_def_id: 'AD000002', device: 'R1', mode: 'strict', vars: { neighbor_ip: 'not-an-ip' } });
    expect(badIp.statusCode).toBe(400);
    expect(badIp.json().error.details.map((d: { path: string }) => d.path)).toContain('result.neighbor_ip');
  });

  it('lists the artifact groups with the variables their runbooks need', async () => {
    const groups = (await app.inject({ url: '/ui/api/artifacts', headers: auth })).json<{ alert_def_id: string; valid: boolean; variables: { name: string; required: boolean; example?: string }[] }[]>();
    const ad2 = groups.find((g) => g.alert_def_id === 'AD000002');
    expect(ad2?.valid).toBe(true);
    expect(ad2?.variables.map((v) => v.name)).toEqual(['neighbor_ip', 'vrf_name', 'device_platform', 'neighbor_as', 'device_ip']);
    expect(ad2?.variables[0]).toEqual({ name: 'neighbor_ip', required: true, example: '10.0.0.2' });
    expect(groups.find((g) => g.alert_def_id === 'AD000003')?.variables.map((v) => v.name)).toContain('interface');
  });

  it('returns the session log when written, null before, 404 for an unknown incident', async () => {
    const written = await app.inject({ url: `/ui/api/sessions/${incident.incident_id}/log`, headers: auth });
    expect(written.json()).toEqual({ incident_id: incident.incident_id, markdown: '# the session log\n' });
    expect((await app.inject({ url: `/ui/api/sessions/${other.incident_id}/log`, headers: auth })).json().markdown).toBeNull();
    expect((await app.inject({ url: '/ui/api/sessions/INC-nope/log', headers: auth })).statusCode).toBe(404);
  });

  it('shows every setting but never a secret\'s value', async () => {
    const res = await app.inject({ url: '/ui/api/settings', headers: auth });
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain('runtime-pw-77');
    const fields = res.json<{ name: string; value: string | null; secret: boolean; isSet: boolean }[]>();
    expect(fields.find((f) => f.name === 'WEBHOOK_SECRET')).toMatchObject({ value: null, secret: true, isSet: true });
    expect(fields.find((f) => f.name === 'MSG_BOT_TOKEN')).toMatchObject({ value: null, secret: true, isSet: false });
    expect(fields.find((f) => f.name === 'REMEDIATION_MODE')).toMatchObject({ value: 'strict', secret: false });
    // Durations as durations, not milliseconds.
    expect(fields.find((f) => f.name === 'APPROVAL_TTL')).toMatchObject({ value: '30m', inForce: '30m' });
    expect(fields.find((f) => f.name === 'DELIVERY_RETRY_MAX_MS')).toMatchObject({ inForce: '1m' });
    expect(fields.length).toBeGreaterThan(25);
  });
});
