import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { linesSha256 } from '../../src/core/approvals/lines';
import { evidenceBundleSchema, verifyEvidenceBundle } from '../../src/core/incidents/evidence-bundle';
import { connectMcp } from '../helpers/mcp-client';
import { createStubRuntime } from '../helpers/stub-runtime';
import { relayForTest } from '../helpers/relay';
import { manualClock } from '../unit/incidents/in-memory-incidents';
import { untilIncident } from '../helpers/incident-waits';
import { useSimulatedLab, type SimulatedLab } from '../helpers/sim-lab';
import { decideAs } from '../helpers/decide-as';

const SECRET = 'evidence-webhook-secret-7781';
const TOOLS = 'evidence-tools-token-5530';
const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const CHECK = 'show ip bgp neighbors 10.0.0.2';
const room = { postMarkdown: async () => undefined, postCard: async () => ({ id: 'card-1' }) };
const auth = { authorization: `Bearer ${SECRET}` };

const labNow = useSimulatedLab();
let lab: SimulatedLab;
beforeEach(() => {
  lab = labNow();
});

let relay: Relay | undefined;
const clients: Awaited<ReturnType<typeof connectMcp>>[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await relay?.close();
  relay = undefined;
});

/** Resolves when the relay arms a timer of `ms` (the post-check's wait): the test then moves the clock past it. */
function timerArmed(clock: ReturnType<typeof manualClock>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const base = clock.setTimeout.bind(clock);
    clock.setTimeout = (fn, wait) => {
      const timer = base(fn, wait);
      if (wait === ms) resolve();
      return timer;
    };
  });
}

async function setUp() {
  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
  // Timers move only when the test says: a provisional change stays as it was applied while it is exported.
  const clock = manualClock(new Date().toISOString());
  relay = await relayForTest({
    clock,
    agent: createStubRuntime(),
    env: { DEVICE_MCP_URL: lab.mcpUrl, RELAY_TOOLS_TOKEN: TOOLS, REMEDIATION_MODE: 'strict', WEBHOOK_SECRET: SECRET },
    room,
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const device = await connectMcp(`${url}/device-mcp`, TOOLS);
  const tools = await connectMcp(`${url}/mcp`, TOOLS);
  clients.push(device, tools);
  const res = await relay.app.inject({
    method: 'POST',
    url: '/fault-alert',
    headers: { 'content-type': 'application/json', ...auth },
    payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })),
  });
  return { id: res.json().incident_id as string, device, tools, clock };
}

const evidence = (id: string, query = '', headers: Record<string, string> = auth) => relay!.app.inject({ method: 'GET', url: `/incidents/${id}/evidence${query}`, headers });

describe('GET /incidents/:id/evidence', () => {
  it('is read like the other incident views: refused without the secret or a session, 404 in the error shape for an unknown id', async () => {
    const { id } = await setUp();
    const none = await evidence(id, '', {});
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(none.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await evidence(id, '', { authorization: 'Bearer wrong-guess' })).statusCode).toBe(401);
    // The tools token is the model's: it reads no incident.
    expect((await evidence(id, '', { authorization: `Bearer ${TOOLS}` })).statusCode).toBe(401);

    // The browser's /ui session (the cookie /ui?token= trades the secret for) opens it, as it opens /sessions.
    const login = await relay!.app.inject({ method: 'GET', url: `/ui?token=${SECRET}` });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    expect((await evidence(id, '', { cookie })).statusCode).toBe(200);

    const unknown = await evidence('INC-20000101T000000Z');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: { code: 'not_found', message: 'No incident INC-20000101T000000Z' } });
    const badFormat = await evidence(id, '?format=pdf');
    expect(badFormat.statusCode).toBe(400);
    expect(badFormat.json().error.code).toBeTypeOf('string');
  });

  it('exports an incident that went through approval and apply: the lines and their hash, the decision, the outputs before and after, the outcome', async () => {
    const { id, device, tools } = await setUp();
    const before = await device.call('exec_cli', { incident_id: id, device: 'R1', command: CHECK });
    expect(before.text).toMatch(/Administratively shut down/);
    expect((await tools.call('request_approval', { incident_id: id, summary: 'admin down', device: 'R1', commands: REPAIR })).json?.status).toBe('pending');
    await decideAs(relay!, id, 'APPROVED', 'alice@example.net');
    const applied = await device.call('config_cli', { incident_id: id, device: 'R1', commands: REPAIR });
    expect(applied.isError, applied.text).toBe(false);
    const after = await device.call('exec_cli', { incident_id: id, device: 'R1', command: CHECK });
    expect(after.text).toMatch(/BGP state = Established/);

    const json = await evidence(id, '?format=json');
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.headers['content-disposition']).toBe(`attachment; filename="${id}-evidence.json"`);
    const bundle = evidenceBundleSchema.parse(json.json());
    expect(verifyEvidenceBundle(bundle)).toEqual([]);
    expect(json.headers['x-evidence-sha256']).toBe(bundle.manifest.content_sha256);
    const requestId = relay!.incidents.get(id)?.approval_request?.request_id;
    expect(requestId).toBeTruthy();
    expect(bundle.incident).toMatchObject({ incident_id: id, alert_def_id: 'AD000002', device_hostname: 'R1' });
    expect(bundle.approval_request).toMatchObject({ request_id: requestId, lines: REPAIR, lines_sha256: linesSha256(REPAIR), lines_sha256_matches: true });
    expect(bundle.decision).toMatchObject({ decision: 'APPROVED', by: 'alice@example.net', channel: 'desktop', request_id: requestId });
    expect(bundle.before.map((o) => [o.command, /Administratively shut down/.test(o.output)])).toEqual([[CHECK, true]]);
    expect(bundle.after.map((o) => [o.command, /BGP state = Established/.test(o.output)])).toEqual([[CHECK, true]]);
    // With confirmed apply the change is provisional until the post-check or a person confirms it.
    const provisional = (relay!.incidents.get(id) as { change?: { state: string; change_id: string } | null }).change;
    expect(bundle.change).toMatchObject({ result: provisional ? 'pending_confirmation' : 'applied', device: 'R1', applied_lines: REPAIR, change_id: provisional?.change_id ?? null });
    // The relay's own secrets are in no part of it.
    for (const secret of [SECRET, TOOLS]) expect(json.body).not.toContain(secret);

    // Markdown is the default: what a person attaches to a change record.
    const md = await evidence(id);
    expect(md.statusCode).toBe(200);
    expect(md.headers['content-type']).toMatch(/^text\/markdown/);
    expect(md.headers['content-disposition']).toBe(`attachment; filename="${id}-evidence.md"`);
    expect(md.body).toContain(`# Evidence: ${id}`);
    expect(md.body).toContain(linesSha256(REPAIR));
    expect(md.body).toMatch(/## Before the change[\s\S]*Administratively shut down[\s\S]*## After the change[\s\S]*BGP state = Established/);
  });

  it('after the relay\'s post-check confirms the change: its output is evidence after, and the outcome says confirmed', async () => {
    const { id, device, tools, clock } = await setUp();
    await device.call('exec_cli', { incident_id: id, device: 'R1', command: CHECK });
    await tools.call('request_approval', { incident_id: id, summary: 'admin down', device: 'R1', commands: REPAIR });
    await decideAs(relay!, id, 'APPROVED', 'alice@example.net');
    // The RAW waits 10 s for convergence before its post-check (wait_for_convergence).
    const waiting = timerArmed(clock, 10_000);
    expect((await device.call('config_cli', { incident_id: id, device: 'R1', commands: REPAIR })).isError).toBe(false);
    await waiting;
    clock.advance(10_000);
    await untilIncident(relay!, id, (_i, timeline) => timeline.some((e) => e.type === 'device.change_confirmed'));

    const bundle = evidenceBundleSchema.parse((await evidence(id, '?format=json')).json());
    expect(verifyEvidenceBundle(bundle)).toEqual([]);
    expect(bundle.before.map((o) => o.by)).toEqual([null]);
    expect(bundle.after.map((o) => [o.command, o.by, /BGP state = Established/.test(o.output)])).toEqual([[CHECK, 'post-check', true]]);
    expect(bundle.change).toMatchObject({ result: 'confirmed', summary: 'Change on R1 confirmed by post-check', reason: 'post_check' });
    const md = (await evidence(id)).body;
    expect(md).toContain("run by the relay's post-check");
    expect(md).toContain('**confirmed**: Change on R1 confirmed by post-check');
  });
});
