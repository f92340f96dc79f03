import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { findFreePort } from '../../src/adapters/agent/free-port';
import { linesSha256 } from '../../src/core/approvals/lines';
import { auditLine, auditViewOf } from '../../src/adapters/audit/audited-entries';
import { auditEventSchema, type AuditEvent } from '../../src/adapters/audit/schema';
import { newToken } from '../../src/core/operators/operators';
import type { Relay } from '../../src/relay/create-relay';
import { startFakeHec, type FakeHec } from '../fakes/splunk-hec';
import { untilIncident } from '../helpers/incident-waits';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';

const HEC_TOKEN = 'hec-token-5b0e1c9a-2f7d-4e61-8c3b-9d4a7e2f1b60';
const SECRET = 'splunk-webhook-secret-41';
const LINES = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const ana = newToken();

let relay: Relay | undefined;
let hec: FakeHec | undefined;
afterEach(async () => {
  await relay?.close();
  await hec?.close();
  relay = undefined;
  hec = undefined;
});

function operatorsFile(): string {
  const path = join(tempDir('fault-relay-ops-'), 'operators.yaml');
  writeFileSync(path, stringify({ operators: [{ name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: ana.sha256 }] }));
  return path;
}

async function relayWithHec(hecUrl: string, env: Record<string, string> = {}) {
  relay = await relayForTest({
    agent: createStubRuntime(),
    env: { OPERATORS_FILE: operatorsFile(), WEBHOOK_SECRET: SECRET, RELAY_DATA_DIR: tempDir('fault-relay-audit-'), SPLUNK_HEC_URL: hecUrl, SPLUNK_HEC_TOKEN: HEC_TOKEN, ...env },
    extraChannels: () => ['desktop'],
  });
  return relay;
}

async function awaitingApproval(r: Relay) {
  const res = await r.app.inject({ method: 'POST', url: '/fault-alert', headers: { authorization: `Bearer ${SECRET}` }, payload: ad000002() });
  expect(res.statusCode).toBe(202);
  const id = res.json().incident_id as string;
  await r.approvals.request({ incident_id: id, summary: 'Remove the shutdown', device: 'R1', commands: LINES });
  return id;
}

const decide = (r: Relay, id: string, token: string) =>
  r.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${token}` }, payload: { request_id: r.incidents.get(id)!.approval_request!.request_id, decision: 'APPROVED' } });

const received = (h: FakeHec): AuditEvent[] => [...h.indexed.values()].map((e) => auditEventSchema.parse(e.event));
const delivered = (r: Relay, id: string) => untilIncident(r, id, (_i, timeline) => auditViewOf(timeline).state === 'sent');

describe('the audit stream to Splunk HEC', () => {
  it('a decision and a failed authentication are one event each, with the incident and the evidence hash; an exported bundle is matched to its trail; delivered means indexed', async () => {
    hec = await startFakeHec({ token: HEC_TOKEN, ack: true });
    const r = await relayWithHec(hec.url, { SPLUNK_HEC_ACK: 'on' });
    const id = await awaitingApproval(r);
    expect((await decide(r, id, 'frp_not-a-token-of-anyone')).statusCode).toBe(401);
    expect((await decide(r, id, ana.token)).statusCode).toBe(200);
    const exported = await r.app.inject({ method: 'GET', url: `/incidents/${id}/evidence?format=json`, headers: { authorization: `Bearer ${SECRET}` } });
    expect(exported.statusCode).toBe(200);
    await delivered(r, id);

    const events = received(hec);
    const decision = events.find((e) => e.type === 'decision');
    expect(decision).toMatchObject({ incident_id: id, actor: 'Ana Ruiz', channel: 'api', outcome: 'APPROVED', device: 'R1', request_id: r.incidents.get(id)!.approval!.request_id, lines_sha256: linesSha256(LINES) });
    expect(decision?.evidence_sha256).toMatch(/^[0-9a-f]{64}$/);
    // The copy a person downloaded names its own hash; the trail holds that hash under the same incident.
    const bundleHash = JSON.parse(exported.body).manifest.content_sha256 as string;
    expect(exported.headers['x-evidence-sha256']).toBe(bundleHash);
    expect(events.find((e) => e.type === 'evidence.exported')).toMatchObject({ incident_id: id, evidence_sha256: bundleHash, actor: 'WEBHOOK_SECRET', outcome: 'json' });
    // Not an incident's: nothing on a timeline says when it is in, so it is looked for.
    await vi.waitFor(() => expect(received(hec!).some((e) => e.type === 'auth.failed')).toBe(true), { timeout: 30_000, interval: 50 });
    expect(received(hec).find((e) => e.type === 'auth.failed')).toMatchObject({ incident_id: null, outcome: '401', detail: { method: 'POST', route: '/incidents/:incident_id/decision' } });
    // One event per thing that happened: sent once each, each id once.
    expect(new Set(hec.requests.flatMap((q) => q.events.map((e) => (e.event as AuditEvent).id))).size).toBe(hec.requests.flatMap((q) => q.events).length);

    const wire = JSON.stringify(hec.requests);
    for (const secret of [SECRET, ana.token, 'frp_not-a-token-of-anyone', HEC_TOKEN, 'no neighbor 10.0.0.2 shutdown']) expect(wire).not.toContain(secret);
    const view = auditViewOf(r.incidents.timeline(id));
    expect(auditLine(view)).toBe(`Audit: ${view.events} events delivered (splunk_hec)`);
    // Indexer acknowledgement: one channel for the relay, each request's ackId asked about before it counted.
    expect(new Set(hec.requests.map((q) => q.channel)).size).toBe(1);
    expect(hec.ackQueries.length).toBeGreaterThanOrEqual(hec.requests.length);
  });

  it('with the collector down the alert and the decision are answered at once; /metrics shows the backlog, /health why; all of it arrives once it is back', async () => {
    const port = await findFreePort();
    const dataDir = tempDir('fault-relay-audit-backlog-');
    const r = await relayWithHec(`http://127.0.0.1:${port}`, { RELAY_DATA_DIR: dataDir });
    const id = await awaitingApproval(r);
    expect((await decide(r, id, ana.token)).statusCode).toBe(200);
    await untilIncident(r, id, (_i, timeline) => timeline.some((e) => e.type === 'audit.waiting'));
    expect(auditLine(auditViewOf(r.incidents.timeline(id)))).toMatch(/^Audit: waiting for splunk_hec \(\d of \d: cannot reach the collector: ECONNREFUSED\)$/);
    // What waits, as the outbox file holds it: batches, each with its events.
    const waiting = () => readFileSync(join(dataDir, 'outbox-audit-splunk-hec.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { op: string; payload?: { events: unknown[] } }).filter((l) => l.op === 'add');
    const scrape = async () => (await r.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${SECRET}` } })).body;
    let events = 0;
    let batches = 0;
    // The backlog counts events; the batches they wait in have a gauge of their own (the same file, read as the scrape is).
    await vi.waitFor(async () => {
      const metrics = await scrape();
      batches = waiting().length;
      events = waiting().reduce((n, l) => n + l.payload!.events.length, 0);
      expect(metrics).toMatch(new RegExp(`^fault_relay_audit_backlog\\{sink="splunk_hec"\\} ${events}$`, 'm'));
      expect(metrics).toMatch(new RegExp(`^fault_relay_audit_backlog_batches\\{sink="splunk_hec"\\} ${batches}$`, 'm'));
    }, { timeout: 30_000, interval: 50 });
    expect(events).toBeGreaterThanOrEqual(batches);
    const health = (await r.app.inject({ method: 'GET', url: '/health' })).json<{ warnings: string[] }>();
    expect(health.warnings).toContainEqual(expect.stringMatching(new RegExp(`^Audit to splunk_hec: ${events} event\\(s\\) in ${batches} batch\\(es\\) waiting to be delivered \\(cannot reach the collector: ECONNREFUSED\\)`)));

    hec = await startFakeHec({ token: HEC_TOKEN, port });
    await delivered(r, id);
    const types = received(hec).map((e) => e.type);
    expect(types).toContain('decision');
    expect(types.filter((t) => t === 'decision')).toHaveLength(1);
  });

  it('a 400 is reported on /health with its reason and not tried again; 429 (after Retry-After) and 503 are', async () => {
    hec = await startFakeHec({ token: HEC_TOKEN });
    hec.fail({ status: 429, code: 9, text: 'Server is busy', retryAfter: '1' }, { status: 503, code: 9, text: 'Server is busy' });
    const r = await relayWithHec(hec.url);
    const id = await awaitingApproval(r);
    expect((await decide(r, id, ana.token)).statusCode).toBe(200);
    await delivered(r, id);
    expect(hec.hits()).toBe(3);

    hec.fail({ status: 400, code: 6, text: 'Invalid data format', invalidEvent: 0 });
    const hitsBefore = hec.hits();
    const exported = await r.app.inject({ method: 'GET', url: `/incidents/${id}/evidence`, headers: { authorization: `Bearer ${SECRET}` } });
    expect(exported.statusCode).toBe(200);
    await untilIncident(r, id, (_i, timeline) => auditViewOf(timeline).state === 'failed');
    expect(auditLine(auditViewOf(r.incidents.timeline(id)))).toBe('Audit: refused by splunk_hec (1)');
    expect(r.incidents.timeline(id).find((e) => e.type === 'audit.failed')).toMatchObject({ sink: 'splunk_hec', reason: 'HTTP 400 code 6: Invalid data format' });
    const health = (await r.app.inject({ method: 'GET', url: '/health' })).json<{ warnings: string[] }>();
    expect(health.warnings).toContain('Audit to splunk_hec: 1 batch(es) of events not delivered and not tried again; last: HTTP 400 code 6: Invalid data format');
    expect(hec.hits()).toBe(hitsBefore + 1);
    const metrics = await r.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${SECRET}` } });
    expect(metrics.body).toMatch(/^fault_relay_audit_failed_batches\{sink="splunk_hec"\} 1$/m);
    expect(metrics.body).toMatch(/^fault_relay_audit_backlog\{sink="splunk_hec"\} 0$/m);
  });

  it('a reload of the policy or the operators file is one event each, naming the file and what is in force', async () => {
    hec = await startFakeHec({ token: HEC_TOKEN });
    const dir = tempDir('fault-relay-audit-policy-');
    for (const f of ['policy.yaml', 'change-records.yaml', 'maintenance-windows.ics']) copyFileSync(resolve(import.meta.dirname, '../..', f), join(dir, f));
    const operators = operatorsFile();
    relay = await relayForTest({
      agent: createStubRuntime(),
      env: { OPERATORS_FILE: operators, WEBHOOK_SECRET: SECRET, POLICY_FILE: join(dir, 'policy.yaml'), RELAY_DATA_DIR: tempDir('fault-relay-audit-'), SPLUNK_HEC_URL: hec.url, SPLUNK_HEC_TOKEN: HEC_TOKEN },
    });
    appendFileSync(join(dir, 'policy.yaml'), '\n# reviewed by the change board\n');
    const bob = newToken();
    writeFileSync(operators, stringify({ operators: [{ name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: ana.sha256 }, { name: 'Bob Ng', email: 'bob@example.net', role: 'viewer', token_sha256: bob.sha256 }] }));
    // The operators file is read again at the next lookup of a token.
    expect((await relay.app.inject({ method: 'GET', url: '/sessions', headers: { authorization: `Bearer ${bob.token}` } })).statusCode).toBe(200);
    await vi.waitFor(() => expect(received(hec!).filter((e) => e.type === 'config.changed').map((e) => e.detail.what).sort()).toEqual(['operators', 'policy']), { timeout: 30_000, interval: 50 });
    const changes = received(hec).filter((e) => e.type === 'config.changed');
    expect(changes.find((e) => e.detail.what === 'policy')).toMatchObject({ actor: 'relay', outcome: 'reloaded', incident_id: null, detail: { file: join(dir, 'policy.yaml'), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(changes.find((e) => e.detail.what === 'operators')).toMatchObject({ outcome: 'reloaded', detail: { file: operators, operators: 2 } });
    expect(JSON.stringify(changes)).not.toContain(bob.sha256);
  });
});
