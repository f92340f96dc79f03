import { acceptedResponseSchema } from '../../src/relay/intake';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePromptText } from '../../src/core/incidents/agent-prompt';
import type { Relay } from '../../src/relay/create-relay';
import { captureLogger } from '../helpers/capture-logger';
import { createStubRuntime } from '../helpers/stub-runtime';
import { ad000002, relayForTest } from '../helpers/relay';

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const post = (r: Relay, body: unknown, headers: Record<string, string> = {}) =>
  r.app.inject({
    method: 'POST',
    url: '/fault-alert',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('POST /fault-alert', () => {
  it('accepts an alert with 202, creates a session and sends the prompt to network-troubleshooter', async () => {
    const agent = createStubRuntime();
    relay = await relayForTest({ agent });
    const res = await post(relay, ad000002());
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toMatchObject({ status: 'accepted', alert_def_id: 'AD000002' });
    expect(body.incident_id).toMatch(/^INC-\d{8}T\d{6}Z(-\d+)?$/);
    expect(body.session_id).toMatch(/^ses_/);
    expect(agent.sessions[0]?.title).toBe(`${body.incident_id} AD000002 R1`);
    expect(agent.prompts[0]?.agent).toBe('network-troubleshooter');
    const prompt = parsePromptText(agent.prompts[0]?.text ?? '');
    expect(prompt).toMatchObject({ incident_id: body.incident_id, device_hostname: 'R1', mode: 'strict', kb_query_mode: 'standard' });
  });

  it('gives incidents of the same second distinct ids', async () => {
    const fixed = new Date('2026-11-21T10:00:00.000Z');
    relay = await relayForTest({
      agent: createStubRuntime(),
      clock: { now: () => fixed, setTimeout: (fn, ms) => { const t = setTimeout(fn, ms); return { cancel: () => clearTimeout(t) }; } },
    });
    const a = (await post(relay, ad000002({ system: 'R1' }))).json();
    const b = (await post(relay, ad000002({ system: 'R2' }))).json();
    const c = (await post(relay, ad000002({ system: 'R3' }))).json();
    expect([a.incident_id, b.incident_id, c.incident_id]).toEqual(['INC-20261121T100000Z', 'INC-20261121T100000Z-2', 'INC-20261121T100000Z-3']);
  });

  it('answers 400 invalid_json for a broken body and changes nothing', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const res = await post(relay, '{"result": ');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'invalid_json', message: expect.any(String) } });
    expect(relay.incidents.list()).toHaveLength(0);
  });

  it('answers 400 invalid_alert with the field paths that are wrong', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const res = await post(relay, { result: { neighbor_ip: 'not-an-ip', nested: { a: 1 } } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error.code).toBe('invalid_alert');
    const paths = body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['result.alert_def_id', 'result.neighbor_ip']));
    expect(relay.incidents.list()).toHaveLength(0);
  });

  it('refuses nested objects in result fields and a missing hostname', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const nested = await post(relay, ad000002({ extra: { deep: true } }));
    expect(nested.statusCode).toBe(400);
    expect(nested.json().error.details).toEqual([{ path: 'result.extra', message: expect.stringMatching(/nested objects/) }]);
    const noHost = await post(relay, { result: { alert_def_id: 'AD000002' } });
    expect(noHost.statusCode).toBe(400);
    expect(noHost.json().error.details[0].path).toBe('result.system');
  });

  it('answers 415 for a non-JSON content type and 413 over the body limit', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { MAX_BODY_BYTES: '2k' } });
    const text = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('unsupported_media_type');
    const big = await post(relay, ad000002({ note: 'x'.repeat(4096) }));
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('payload_too_large');
    expect(relay.incidents.list()).toHaveLength(0);
  });

  it('answers 401 with WWW-Authenticate when the bearer secret is missing or wrong', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: 's3cret-value' } });
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 's3cret-value' }] as Record<string, string>[]) {
      const res = await post(relay, ad000002(), headers);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.json().error.code).toBe('unauthorized');
      expect(res.body).not.toContain('s3cret-value');
    }
    const ok = await post(relay, ad000002(), { authorization: 'Bearer s3cret-value' });
    expect(ok.statusCode).toBe(202);
    expect(relay.incidents.list()).toHaveLength(1);
  });

  it('keys an interface fault (AD000003, FS key_fields) by device and interface, even when only _raw names it', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const line = (intf: string) => `R1 %LINK-5-CHANGED: Interface ${intf}, changed state to administratively down`;
    const ad3 = (result: Record<string, unknown>) => ({ sid: 's', result: { alert_def_id: 'AD000003', system: 'R1', ...result } });
    const gi2 = (await post(relay, ad3({ _raw: line('GigabitEthernet2') }))).json();
    const again = (await post(relay, ad3({ interface: 'GigabitEthernet2', neighbor_ip: '10.0.0.2' }))).json();
    const gi3 = (await post(relay, ad3({ _raw: line('GigabitEthernet3') }))).json();
    expect([gi2.status, again.status, gi3.status]).toEqual(['accepted', 'duplicate', 'accepted']);
    expect(again.incident_id).toBe(gi2.incident_id);
    expect(gi3.incident_id).not.toBe(gi2.incident_id);
    expect(relay.incidents.get(gi3.incident_id)?.field_sources).toMatchObject({ interface: '_raw' });
  });

  it('folds repeated alerts into the open incident: one session, occurrences counted', async () => {
    const agent = createStubRuntime();
    relay = await relayForTest({ agent });
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(relay as Relay, ad000002())));
    const bodies = answers.map((a) => a.json());
    expect(new Set(bodies.map((b) => b.incident_id)).size).toBe(1);
    expect(bodies.filter((b) => b.status === 'duplicate')).toHaveLength(19);
    // Sent without a zod pass for speed: every answer still has the documented shape.
    for (const b of bodies) expect(acceptedResponseSchema.strict().parse(b)).toEqual(b);
    expect(agent.sessions).toHaveLength(1);
    const sessions = (await relay.app.inject({ url: '/sessions' })).json();
    const only = Object.values(sessions)[0] as { occurrences: number };
    expect(only.occurrences).toBe(20);
    const other = await post(relay, ad000002({ system: 'R2' }));
    expect(other.json().status).toBe('accepted');
    expect(agent.sessions).toHaveLength(2);
  });

  it('queues the alert when the runtime is down and delivers it once the runtime is back', async () => {
    const agent = createStubRuntime();
    agent.setDown('unreachable');
    relay = await relayForTest({ agent });
    const res = await post(relay, ad000002());
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ status: 'queued', session_id: null });
    const id = res.json().incident_id;
    expect(relay.incidents.get(id)?.delivery.last_error).toMatch(/unreachable/);

    const delivered = new Promise<string>((resolve) =>
      relay?.bus.subscribe('incident.updated', ({ incident }) => {
        if (incident.incident_id === id && incident.state === 'running') resolve(incident.session_id as string);
      }),
    );
    agent.setUp();
    relay.dispatcher.kick({ resetBackoff: true });
    expect(await delivered).toMatch(/^ses_/);
    expect(agent.prompts).toHaveLength(1);
  });

  it('delivers every queued alert once the runtime is back, not just the first', async () => {
    const agent = createStubRuntime();
    agent.setDown('unreachable');
    relay = await relayForTest({ agent });
    const ids: string[] = [];
    for (const host of ['R1', 'R2', 'R3']) ids.push((await post(relay, ad000002({ system: host }))).json().incident_id);
    expect(ids.map((id) => relay?.incidents.get(id)?.state)).toEqual(['queued', 'queued', 'queued']);
    const allRunning = new Promise<void>((resolve) =>
      relay?.bus.subscribe('incident.updated', () => {
        if (ids.every((id) => relay?.incidents.get(id)?.state === 'running')) resolve();
      }),
    );
    // No kick: the relay's own retry finds the runtime back.
    agent.setUp();
    await allRunning;
    expect(agent.sessions.map((s) => s.title?.split(' ')[2])).toEqual(['R1', 'R2', 'R3']);
  });

  it('runs at most MAX_ACTIVE_RUNS at once and starts the next when one ends, first in first out', async () => {
    const agent = createStubRuntime();
    relay = await relayForTest({ agent, env: { MAX_ACTIVE_RUNS: '2' } });
    const ids: string[] = [];
    for (const host of ['R1', 'R2', 'R3', 'R4']) ids.push((await post(relay, ad000002({ system: host }))).json().incident_id);
    expect(ids.map((id) => relay?.incidents.get(id)?.state)).toEqual(['running', 'running', 'queued', 'queued']);

    const third = new Promise<void>((resolve) =>
      relay?.bus.subscribe('incident.updated', ({ incident }) => {
        if (incident.incident_id === ids[2] && incident.state === 'running') resolve();
      }),
    );
    relay.incidents.transition(ids[0] as string, 'resolve');
    await third;
    expect(relay.incidents.get(ids[3] as string)?.state).toBe('queued');
    expect(agent.sessions.map((s) => s.title?.split(' ')[2])).toEqual(['R1', 'R2', 'R3']);
  });
});

describe('logs', () => {
  it('every line about an accepted alert carries its incident_id, including the request completion', async () => {
    const log = captureLogger();
    relay = await relayForTest({ agent: createStubRuntime(), logger: log.logger });
    const { incident_id } = (await post(relay, ad000002())).json();
    const lines = log.lines.map((l) => JSON.parse(l));
    const completion = lines.find((l) => l.msg === 'request completed' && l.res?.statusCode === 202);
    expect(completion?.incident_id).toBe(incident_id);
    for (const msg of ['incident created', 'incident delivered to the agent runtime', 'fault alert answered']) {
      expect(lines.find((l) => l.msg === msg)?.incident_id, msg).toBe(incident_id);
    }
  });
});

describe('sessions and health', () => {
  it('lists incidents with their metadata and serves one with its timeline', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const { incident_id } = (await post(relay, ad000002())).json();
    const all = (await relay.app.inject({ url: '/sessions' })).json();
    expect(Object.keys(all)).toEqual([incident_id]);
    expect(all[incident_id]).toMatchObject({
      incident_id, alert_def_id: 'AD000002', device_hostname: 'R1', mode: 'strict', state: 'running', occurrences: 1,
      warnings: [], approval: null, outcome: null,
    });
    expect(all[incident_id]).not.toHaveProperty('prompt_text');
    const one = (await relay.app.inject({ url: `/sessions/${incident_id}` })).json();
    expect(one.timeline.map((e: { type: string }) => e.type)).toEqual(['alert.received', 'session.created', 'state.changed', 'prompt.sent']);
    const missing = await relay.app.inject({ url: '/sessions/INC-nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('not_found');
  });

  it('protects /sessions and /health/deep with the bearer but leaves /health open', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: 'abc123abc123' } });
    expect((await relay.app.inject({ url: '/sessions' })).statusCode).toBe(401);
    expect((await relay.app.inject({ url: '/health/deep' })).statusCode).toBe(401);
    const health = await relay.app.inject({ url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({
      status: 'ok',
      agent_url: 'http://127.0.0.1:1',
      agent: 'network-troubleshooter',
      mode: 'strict',
      approval_channels: [],
      warnings: [expect.stringMatching(/No approval channel .* every configuration change .* is denied/)],
    });
  });

  it('reports a rejected runtime password as degraded without revealing it', async () => {
    const agent = createStubRuntime();
    agent.setDown('auth');
    relay = await relayForTest({ agent, env: { AGENT_SERVER_PASSWORD: 'runtime-pw-XYZ' } });
    const res = await relay.app.inject({ url: '/health/deep' });
    expect(res.statusCode).toBe(503);
    const body = res.json();
    expect(body.status).toBe('degraded');
    expect(body.checks.agent_runtime).toMatchObject({ ok: false, error: expect.stringMatching(/AGENT_SERVER_PASSWORD/) });
    expect(body.checks.device_mcp).toEqual({ skipped: true });
    expect(body.checks.messaging).toEqual({ configured: false, connected: false });
    // The live event stream is reported too (the stub runtime never streams).
    expect(body.checks.agent_runtime.event_stream).toEqual({ connected: false });
    expect(res.body).not.toContain('runtime-pw-XYZ');
  });
});
