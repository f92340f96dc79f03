import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { newToken } from '../../src/core/operators/operators';
import type { Relay } from '../../src/relay/create-relay';
import { amAlert, amWebhook } from '../helpers/alertmanager';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { entries } from '../../src/core/events/timeline-entries';

const SECRET = 'metrics-webhook-secret-7';
const auth = { authorization: `Bearer ${SECRET}` };
const ana = newToken();

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

function operatorsFile(): string {
  const path = join(tempDir('fault-relay-metrics-ops-'), 'operators.yaml');
  writeFileSync(path, stringify({ operators: [{ name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: ana.sha256 }] }));
  return path;
}

/** The value of one sample in the text exposition, found by name and the labels given (others may be present). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((p) => [p[1], p[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

async function scrape(r: Relay, token = SECRET) {
  const res = await r.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.body;
}

describe('GET /metrics', () => {
  it('counts alerts by source and answer, decisions by outcome and channel, and reads the gauges at scrape time', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET, OPERATORS_FILE: operatorsFile() }, extraChannels: () => ['desktop'] });
    const r = relay;
    const before = await scrape(r);
    expect(sample(before, 'fault_relay_alerts_received_total', { source: 'splunk', answer: 'accepted' })).toBeUndefined();
    expect(sample(before, 'fault_relay_team_leader')).toBe(0);
    expect(sample(before, 'fault_relay_store_up')).toBe(1);

    const first = await r.app.inject({ method: 'POST', url: '/fault-alert', headers: auth, payload: ad000002() });
    expect(first.json().status).toBe('accepted');
    const repeat = await r.app.inject({ method: 'POST', url: '/fault-alert', headers: auth, payload: ad000002() });
    expect(repeat.json().status).toBe('duplicate');
    expect((await r.app.inject({ method: 'POST', url: '/fault-alert', headers: auth, payload: { not: 'splunk' } })).statusCode).toBe(400);
    const batch = await r.app.inject({ method: 'POST', url: '/alerts/alertmanager', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(amWebhook([amAlert()])) });
    expect(batch.statusCode, batch.body).toBe(202);
    const amStatus = batch.json<{ accepted: { status: string }[] }>().accepted[0]!.status;

    const id = first.json().incident_id as string;
    await r.approvals.request({ incident_id: id, summary: 'Remove the shutdown', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    const request_id = r.incidents.get(id)!.approval_request!.request_id;
    const decided = await r.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${ana.token}` }, payload: { request_id, decision: 'APPROVED' } });
    expect(decided.statusCode, decided.body).toBe(200);
    // What the device guard writes when it refuses a call (src/adapters/device-tools/device-guard.ts): the free-text reason becomes a fixed label.
    r.incidents.record(id, entries.deviceRefused, 'exec_cli refused: R9 is not this incident\'s device', { tool: 'exec_cli', reason: 'R9 is not this incident\'s device R1' });

    // A person's token reads it too, as /health/deep.
    const text = await scrape(r, ana.token);
    expect(sample(text, 'fault_relay_alerts_received_total', { source: 'splunk', answer: 'accepted' })).toBe(1);
    expect(sample(text, 'fault_relay_alerts_received_total', { source: 'splunk', answer: 'duplicate' })).toBe(1);
    expect(sample(text, 'fault_relay_alerts_received_total', { source: 'splunk', answer: 'invalid' })).toBe(1);
    expect(sample(text, 'fault_relay_alerts_received_total', { source: 'alertmanager', answer: amStatus })).toBe(1);
    expect(sample(text, 'fault_relay_approvals_requested_total')).toBe(1);
    expect(sample(text, 'fault_relay_approvals_decided_total', { outcome: 'APPROVED', channel: 'api' })).toBe(1);
    expect(sample(text, 'fault_relay_approval_decision_seconds_count', { outcome: 'APPROVED' })).toBe(1);
    expect(sample(text, 'fault_relay_device_calls_total', { tool: 'exec_cli', result: 'refused', reason: 'policy' })).toBe(1);
    // The incidents gauge is the relay's open incidents, per state, when scraped.
    const open = r.incidents.open();
    expect(open.length).toBeGreaterThan(0);
    for (const state of new Set(open.map((i) => i.state))) expect(sample(text, 'fault_relay_incidents', { state })).toBe(open.filter((i) => i.state === state).length);
    expect(sample(text, 'fault_relay_delivery_queue_depth')).toBe(open.filter((i) => i.state === 'queued').length);
    // No secret in the exposition: neither the webhook secret nor a person's token.
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(ana.token);
  });

  it('is protected like /health/deep: no bearer or a wrong one is 401 in the documented error shape', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET } });
    for (const headers of [{}, { authorization: 'Bearer wrong' }]) {
      const res = await relay.app.inject({ url: '/metrics', headers });
      const deep = await relay.app.inject({ url: '/health/deep', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      expect(res.json()).toEqual(deep.json());
    }
  });

  it('keeps a registry per relay: two relays in one process count apart', async () => {
    const other = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET } });
    relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET } });
    try {
      await other.app.inject({ method: 'POST', url: '/fault-alert', headers: auth, payload: ad000002() });
      expect(sample(await scrape(other), 'fault_relay_alerts_received_total', { source: 'splunk', answer: 'accepted' })).toBe(1);
      expect(sample(await scrape(relay), 'fault_relay_alerts_received_total', { source: 'splunk', answer: 'accepted' })).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});
