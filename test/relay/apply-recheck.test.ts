import { copyFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { newToken } from '../../src/core/operators/operators';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { buildEvidenceBundle } from '../../src/core/incidents/evidence-bundle';
import { renderEvidenceMarkdown } from '../../src/core/incidents/evidence-markdown';
import type { Relay } from '../../src/relay/create-relay';
import { connectMcp } from '../helpers/mcp-client';
import { relayForTest } from '../helpers/relay';
import { useSimulatedLab, type SimulatedLab } from '../helpers/sim-lab';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { manualClock } from '../unit/incidents/in-memory-incidents';

/**
 * At apply time, on the simulated lab through the relay's guard: the change policy is evaluated
 * again (a freeze, a change record's window or the end of a class's hours that began after the
 * approval stops it), and the device must still be the one the preview read (no-overwrite).
 */
const labNow = useSimulatedLab();
let lab: SimulatedLab;
beforeEach(() => {
  lab = labNow();
});
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const neighbor = () => {
  const r = lab.lab.exec('R1', 'show ip bgp neighbors 10.0.0.2');
  return r.ok ? r.output : r.error;
};

function operatorsIn(dir: string): string {
  const file = join(dir, 'operators.yaml');
  writeFileSync(file, stringify({ operators: [{ name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', os_user: 'ana', groups: ['tier1', 'tier2'], token_sha256: newToken().sha256 }] }));
  return file;
}

/** A relay on the lab with the shipped policy, pinned at `at`; an incident on R1 whose repair is approved. */
async function approvedAt(at: string, vrf?: string) {
  // The lab's neighbor is in the global table whatever VRF the alert names: the policy reads the alert.
  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
  const dir = tempDir('fault-relay-apply-recheck-');
  for (const f of ['policy.yaml', 'change-records.yaml', 'maintenance-windows.ics']) copyFileSync(resolve(import.meta.dirname, '../..', f), join(dir, f));
  const clock = manualClock(at);
  const relay: Relay = await relayForTest({
    agent: createStubRuntime(),
    clock,
    env: { DEVICE_MCP_URL: lab.mcpUrl, RELAY_TOOLS_TOKEN: 'tok', POLICY_FILE: join(dir, 'policy.yaml'), OPERATORS_FILE: operatorsIn(dir) },
    extraChannels: () => ['desktop'],
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const device = await connectMcp(`${url}/device-mcp`, 'tok');
  const tools = await connectMcp(`${url}/mcp`, 'tok');
  open.push(relay, device, tools);
  const alert = buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2', now: clock.now(), ...(vrf ? { vrf } : {}) });
  const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(alert) })).json().incident_id as string;
  const ask = () => tools.call('request_approval', { incident_id: id, summary: 'admin down', device: 'R1', commands: REPAIR });
  expect((await ask()).json).toMatchObject({ status: 'pending' });
  // The tray's user, an approver in every group the shipped policy names: one approval meets any rule here.
  expect(await relay.decide({ incident_id: id, decision: 'APPROVED', who: { id: 'ana', authenticated_by: 'os_user' }, channel: 'desktop' })).toMatchObject({ status: 'accepted' });
  const apply = () => device.call('config_cli', { incident_id: id, device: 'R1', commands: REPAIR });
  const types = () => relay.incidents.timeline(id).map((e) => e.type);
  const entries = (type: string) => relay.incidents.timeline(id).filter((e) => e.type === type);
  return { relay, clock, id, ask, apply, types, entries };
}

describe('the change policy, checked again when the approved change is applied', () => {
  it.each([
    { when: 'a freeze begins', approved: '2026-12-17T23:58:00.000Z', rule: 'SC-BGP-01 in freeze year-end', says: /change freeze year-end/ },
    { when: "its change record's window opens", approved: '2026-12-06T01:58:00.000Z', rule: 'change record CHG-2026-1203', says: /Escalate to AMS1 network engineer on duty/ },
    { when: "its class's hours end", approved: '2026-11-27T21:58:00.000Z', rule: 'SC-BGP-02', says: /only between 06:00-22:00 UTC/, vrf: 'CUST-A' },
  ])('approved, then $when before it is applied: nothing is sent, the approval expires, the run ends escalated naming the rule', async ({ approved, rule, says, vrf }) => {
    const t = await approvedAt(approved, vrf);
    const changes = lab.lab.configChanges();
    t.clock.advance(3 * 60_000);

    const answer = await t.apply();
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/REFUSED by the relay's device guard: Not applied: the change policy, checked again at apply time, does not allow it now/);
    expect(answer.text).toContain(`(${rule})`);
    expect(answer.text).toMatch(says);

    expect(lab.lab.configChanges()).toBe(changes);
    expect(neighbor()).toMatch(/Administratively shut down/);
    const incident = t.relay.incidents.get(t.id)!;
    expect(incident).toMatchObject({ state: 'escalated', approval_request: { status: 'expired' }, application: { status: 'none' }, outcome: { kind: 'escalated' } });
    expect(incident.outcome?.summary).toContain(rule);
    expect(t.entries('policy.rechecked')).toEqual([expect.objectContaining({ rule, verdict: 'escalate' })]);
    expect(t.types()).not.toContain('device.config_applied');
    // The approval is spent: asking the device again changes nothing.
    expect((await t.apply()).isError).toBe(true);
    expect(lab.lab.configChanges()).toBe(changes);
  });

  it('still allowed at apply time: applied, with the check on the timeline', async () => {
    const t = await approvedAt('2026-11-27T12:00:00.000Z');
    t.clock.advance(3 * 60_000);
    const answer = await t.apply();
    expect(answer.isError, answer.text).toBe(false);
    expect(t.entries('policy.rechecked')).toEqual([expect.objectContaining({ rule: 'SC-BGP-01', verdict: 'approve' })]);
    expect(neighbor()).not.toMatch(/Administratively shut down/);
  });
});

describe('no-overwrite: the device must be the one the preview read', () => {
  it('changed by hand between preview and apply: nothing is sent, the approval is void, and a new preview and decision are asked for', async () => {
    const t = await approvedAt('2026-11-27T12:00:00.000Z');
    const previewed = t.relay.incidents.get(t.id)!.approval_request!.preview!.fingerprint!.sha256;
    // Someone else changes R1 meanwhile.
    const byHand = lab.lab.config('R1', ['interface GigabitEthernet2', 'description changed by hand']);
    expect(byHand.ok).toBe(true);
    const changes = lab.lab.configChanges();

    const answer = await t.apply();
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^Not applied on R1: its configuration changed since the preview the approval was given on .* Nothing was sent; the approval is void\..*request a new approval \(a new preview and decision\)/s);
    expect(lab.lab.configChanges()).toBe(changes);
    expect(neighbor()).toMatch(/Administratively shut down/);
    const [mismatch] = t.entries('change.fingerprint_mismatch');
    expect(mismatch).toMatchObject({ device: 'R1', before_sha256: previewed, now_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(mismatch!.now_sha256).not.toBe(previewed);
    // The relay's diff of what the preview read and what is there now: the description someone replaced.
    expect(mismatch!.changed).toEqual(['- interface GigabitEthernet2 › description to R3 Gi1 | transit AS65003', '+ interface GigabitEthernet2 › description changed by hand']);
    expect(answer.text).toContain('"+ interface GigabitEthernet2 › description changed by hand"');
    const incident = t.relay.incidents.get(t.id)!;
    expect(incident).toMatchObject({ state: 'running', approval_request: { status: 'expired' }, application: { status: 'none' } });
    expect((await t.apply()).text).toMatch(/EXPIRED/);

    // A new request previews the device as it is now; approved and applied, the check matches.
    expect((await t.ask()).json).toMatchObject({ status: 'pending' });
    const now = t.relay.incidents.get(t.id)!.approval_request!.preview!.fingerprint!.sha256;
    expect(now).toBe(mismatch!.now_sha256);
    expect(await t.relay.decide({ incident_id: t.id, decision: 'APPROVED', who: { id: 'ana', authenticated_by: 'os_user' }, channel: 'desktop' })).toMatchObject({ status: 'accepted' });
    expect((await t.apply()).isError).toBe(false);
    expect(neighbor()).not.toMatch(/Administratively shut down/);
    expect(t.entries('change.fingerprint_checked')).toEqual([expect.objectContaining({ device: 'R1', before_sha256: now, now_sha256: now, match: true })]);

    // The evidence bundle records both checks.
    const bundle = buildEvidenceBundle({ incident: t.relay.incidents.get(t.id)!, timeline: t.relay.incidents.timeline(t.id), now: new Date() });
    expect(bundle.change.fingerprint_checks).toEqual([
      expect.objectContaining({ result: 'mismatch', device: 'R1', before_sha256: previewed, now_sha256: now }),
      expect.objectContaining({ result: 'match', device: 'R1', before_sha256: now, now_sha256: now }),
    ]);
    const markdown = renderEvidenceMarkdown(bundle);
    expect(markdown).toContain(`| R1 | mismatch | ${previewed} | ${now} |`);
    expect(markdown).toContain('+ interface GigabitEthernet2 › description changed by hand');
  });
});
