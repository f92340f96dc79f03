import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { planSha256 } from '../../src/core/approvals/plan-lines';
import { buildEvidenceBundle } from '../../src/core/incidents/evidence-bundle';
import { DeviceToolError, type DeviceTools } from '../../src/core/changes/device-contract';
import { deviceFailure } from '../../src/core/changes/device-failure';
import { createLabDeviceTools } from '../../harness/ios-lab/lab-device-tools';
import { labAddressBook, loadInventory } from '../../harness/ios-lab/inventory';
import { startLab } from '../../harness/ios-lab/server';
import { memoryQuarantine, type QuarantineBackend } from '../../src/core/quarantine/entry';
import type { Clock } from '../../src/core/clock';
import { people, policyPeopleEnv } from '../helpers/policy-people';
import { manualClock } from '../unit/incidents/in-memory-incidents';
import { untilIncident } from '../helpers/incident-waits';
import { waitUntil } from '../helpers/opencode';
import { connectMcp } from '../helpers/mcp-client';
import { relayForTest, silent } from '../helpers/relay';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { createStubRuntime } from '../helpers/stub-runtime';
import { decideAs } from '../helpers/decide-as';

/**
 * A repair that spans routers, on the simulated lab: one plan, approved once, applied on every device
 * or on none, confirmed or rolled back together; a plan naming a device the RAW does not allow, a
 * device twice, or lines a device's dry run refuses, is refused before anyone is asked.
 */
type Lab = Awaited<ReturnType<typeof startLab>>;
let lab: Lab;
let project: string;
beforeAll(async () => {
  lab = await startLab({ port: 0, host: '127.0.0.1', convergeDelayMs: 0, logger: silent });
  // AD000002 with its BGP peer declared as a plan device, found by the neighbor address.
  project = mkdtempSync(join(tmpdir(), 'fault-relay-plan-'));
  cpSync('intelligence-artifacts', join(project, 'intelligence-artifacts'), { recursive: true });
  const raw = join(project, 'intelligence-artifacts', 'AD000002', 'RAW.yaml');
  writeFileSync(raw, readFileSync(raw, 'utf8').replace('\nsteps:\n', '\nplan_devices:\n  - { role: peer, description: The BGP peer, find: address_owner, input: neighbor_ip }\nsteps:\n'));
});
afterAll(async () => {
  await lab?.stop();
  rmSync(project, { recursive: true, force: true });
});
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
  lab.lab.reset();
});

const R1 = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const R2 = ['router bgp 65002', 'neighbor 10.0.0.1 description R1-transit'];
const PLAN = [{ device: 'R1', commands: R1 }, { device: 'R2', commands: R2 }];

/** A relay on the lab (or `deviceTools`), and an incident on R1 whose peer R2 a plan may change. */
async function start(opts: { deviceTools?: DeviceTools; quarantine?: QuarantineBackend; clock?: Clock; env?: Record<string, string> } = {}) {
  const { quarantine, clock } = opts;
  const relay = await relayForTest({
    agent: createStubRuntime(),
    env: { RELAY_TOOLS_TOKEN: 'tok', RELAY_PROJECT_DIR: project, ...opts.env },
    deviceTools: opts.deviceTools ?? createLabDeviceTools(lab.lab),
    extraChannels: () => ['desktop'],
    postCheckPaceS: 0,
    addressBook: labAddressBook(await loadInventory()),
    ...(quarantine ? { quarantine } : {}),
    ...(clock ? { clock } : {}),
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const device = await connectMcp(`${url}/device-mcp`, 'tok');
  const tools = await connectMcp(`${url}/mcp`, 'tok');
  open.push(relay, device, tools);
  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
  const fire = async (device: string, neighbor: string) =>
    (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device, neighbor, ...(clock ? { now: clock.now() } : {}) })) })).json().incident_id as string;
  const id = await fire('R1', '10.0.0.2');
  const ask = (plan: unknown) => tools.call('request_approval', { incident_id: id, summary: 'unshut both ends', plan });
  const approveAndApply = async (plan = PLAN) => {
    expect((await ask(plan)).json).toMatchObject({ status: 'pending', devices: ['R1', 'R2'] });
    await decideAs(relay, id, 'APPROVED', 'ana@example.net');
    return device.call('config_cli', { incident_id: id, plan });
  };
  return { relay, device, tools, id, ask, approveAndApply, fire };
}
const types = (t: Awaited<ReturnType<typeof start>>) => t.relay.incidents.timeline(t.id).map((e) => e.type);
const entry = (t: Awaited<ReturnType<typeof start>>, type: string) => t.relay.incidents.timeline(t.id).find((e) => e.type === type);
const runningOf = (device: string) => {
  const r = lab.lab.exec(device, 'show running-config');
  // The header says when and how long: the lines below it are the configuration.
  return (r.ok ? r.output : r.error).split('\n').filter((l) => !/^(Current configuration|! Last configuration change)/.test(l)).join('\n');
};

describe('a plan is refused before any card', () => {
  it('names a device the RAW does not allow, a device twice, or lines a device refuses, and says why', async () => {
    const t = await start();
    const outside = await t.ask([{ device: 'R1', commands: R1 }, { device: 'R3', commands: R2 }]);
    expect(outside).toMatchObject({ isError: true, text: expect.stringMatching(/"R3" is not a device this plan may change: the RAW for AD000002 allows R1, R2/) });
    const twice = await t.ask([{ device: 'R1', commands: R1 }, { device: 'r1', commands: R2 }]);
    expect(twice).toMatchObject({ isError: true, text: expect.stringMatching(/R1 appears twice/) });
    const refused = await t.ask([{ device: 'R1', commands: R1 }, { device: 'R2', commands: ['router bgp 65002', 'frobnicate the neighbor'] }]);
    expect(refused).toMatchObject({ isError: true, text: expect.stringMatching(/the dry run on R2 refused its lines/) });
    expect(t.relay.incidents.get(t.id)).toMatchObject({ state: 'running', approval_request: null });
    expect(types(t)).not.toContain('approval.requested');
  });
});

describe('a plan waits for every one of its devices', () => {
  it('is held whole while one of its devices is quarantined, shown as waiting for it, and asked once a person clears it', async () => {
    const quarantine = memoryQuarantine();
    const since = new Date().toISOString();
    const reason = 'change chg-old of an earlier incident: ROLLBACK FAILED';
    await quarantine.add({ device: 'R2', reason, since, incident_id: null, change_id: 'chg-old' });
    const t = await start({ quarantine, env: policyPeopleEnv(1) });
    const asked = await t.ask(PLAN);
    expect(asked.json).toMatchObject({ status: 'held', device: 'R2', waiting_for: { quarantined: 'R2', since, reason } });
    expect(entry(t, 'approval.held')).toMatchObject({ device: 'R2', quarantined_since: since, quarantine_reason: reason, message: expect.stringMatching(/the plan's device R2 is quarantined since .*until a person clears R2/) });
    expect(t.relay.approvals.heldFor(t.id)).toEqual({ device: 'R2', since, reason });
    // No card, and the run is not over: it waits.
    expect(t.relay.incidents.get(t.id)).toMatchObject({ state: 'running', approval_request: null });
    expect(types(t)).not.toContain('approval.requested');

    const cleared = await t.relay.app.inject({ method: 'POST', url: '/devices/R2/clear', headers: { authorization: `Bearer ${people.ana.token}` } });
    expect(cleared.statusCode, cleared.body).toBe(200);
    const now = await untilIncident(t.relay, t.id, (i) => i.state === 'awaiting_approval');
    expect(now.approval_request).toMatchObject({ status: 'pending', plan: [expect.objectContaining({ device: 'R1' }), expect.objectContaining({ device: 'R2' })] });
    expect(entry(t, 'approval.unheld')).toMatchObject({ quarantined_since: since, message: 'R2 was cleared: the plan held for it is asked now' });
    expect(types(t).filter((x) => x.startsWith('approval.'))).toEqual(['approval.held', 'approval.unheld', 'approval.requested']);
  });

  it('is held, not asked, while another incident has a change provisional on R2, and asked once that change is confirmed', async () => {
    // The other incident's post-check reads on R2 wait, so its change stays provisional until a person decides.
    let release!: () => void;
    const reads = new Promise<void>((resolve) => (release = resolve));
    const real = createLabDeviceTools(lab.lab);
    const slowR2: DeviceTools = { ...real, execCli: async (d, c) => (d === 'R2' && (await reads), real.execCli(d, c)) };
    const t = await start({ deviceTools: slowR2 });
    const other = await t.fire('R2', '10.0.0.1');
    const R2_ONLY = ['router bgp 65002', 'neighbor 10.0.0.1 description other-incident'];
    expect((await t.tools.call('request_approval', { incident_id: other, summary: 'describe', device: 'R2', commands: R2_ONLY })).json).toMatchObject({ status: 'pending' });
    await decideAs(t.relay, other, 'APPROVED', 'ana@example.net');
    expect((await t.device.call('config_cli', { incident_id: other, device: 'R2', commands: R2_ONLY })).isError).toBe(false);
    const change = t.relay.incidents.get(other)!.change!;
    expect(change.state).toBe('pending');

    const asked = await t.ask(PLAN);
    expect(asked.json).toMatchObject({ status: 'held', device: 'R2', waiting_for: { incident_id: other, change_id: change.change_id, deadline: change.deadline } });
    expect(entry(t, 'approval.held')).toMatchObject({ device: 'R2', waiting_for_incident: other, waiting_for_change: change.change_id, message: expect.stringContaining(`R2 has change ${change.change_id} of ${other}`) });
    expect(t.relay.incidents.get(t.id)).toMatchObject({ state: 'running', approval_request: null });
    expect(t.relay.approvals.heldFor(t.id)).toEqual({ incident_id: other, change_id: change.change_id });

    expect(await t.relay.confirm!({ incident_id: other, change_id: change.change_id, who: { id: 'ana@example.net', authenticated_by: 'personal_token' } })).toMatchObject({ ok: true });
    const now = await untilIncident(t.relay, t.id, (i) => i.state === 'awaiting_approval');
    expect(now.approval_request).toMatchObject({ status: 'pending', plan: [expect.objectContaining({ device: 'R1' }), expect.objectContaining({ device: 'R2' })] });
    expect(types(t)).toEqual(expect.arrayContaining(['approval.held', 'approval.unheld', 'approval.requested']));
    release();
  });

  it('held behind a change on R2 that could not be rolled back, it goes on waiting for R2 to be cleared, then is asked', async () => {
    let release!: () => void;
    const reads = new Promise<void>((resolve) => (release = resolve));
    const real = createLabDeviceTools(lab.lab);
    // R2 keeps the other incident's lines whatever it is told: its rollback fails.
    const stuckR2: DeviceTools = {
      ...real,
      execCli: async (d, c) => (d === 'R2' && (await reads), real.execCli(d, c)),
      rollbackChange: async (d, id, why) => (d === 'R2' ? { ...(await real.changeStatus(d, id)), state: 'rollback_failed', reason: why, detail: 'R2 still has the description' } : real.rollbackChange(d, id, why)),
    };
    const t = await start({ deviceTools: stuckR2 });
    const other = await t.fire('R2', '10.0.0.1');
    const R2_ONLY = ['router bgp 65002', 'neighbor 10.0.0.1 description other-incident'];
    expect((await t.tools.call('request_approval', { incident_id: other, summary: 'describe', device: 'R2', commands: R2_ONLY })).json).toMatchObject({ status: 'pending' });
    await decideAs(t.relay, other, 'APPROVED', 'ana@example.net');
    expect((await t.device.call('config_cli', { incident_id: other, device: 'R2', commands: R2_ONLY })).isError).toBe(false);
    expect((await t.ask(PLAN)).json).toMatchObject({ status: 'held', device: 'R2', waiting_for: { incident_id: other } });

    // The other change's post-check fails (R1 still shuts the session) and its rollback fails: R2 is quarantined.
    release();
    await untilIncident(t.relay, t.id, (_i, timeline) => timeline.filter((e) => e.type === 'approval.held').length === 2);
    const held = t.relay.incidents.timeline(t.id).filter((e) => e.type === 'approval.held')[1];
    expect(held).toMatchObject({ device: 'R2', quarantine_reason: expect.stringContaining(`of ${other}: ROLLBACK FAILED`) });
    expect(t.relay.incidents.get(t.id)).toMatchObject({ state: 'running', approval_request: null });
    expect(types(t)).not.toContain('approval.requested');

    await waitUntil(() => t.relay.quarantine.cached('R2') !== undefined, 'R2 is quarantined');
    await t.relay.quarantine.clear('R2', 'ana@example.net');
    const asked = await untilIncident(t.relay, t.id, (i) => i.state === 'awaiting_approval');
    expect(asked.approval_request?.plan?.map((e) => e.device)).toEqual(['R1', 'R2']);
  });

  it('approved, then a change record naming R2 opens before it is applied: nothing is sent to either router, the approval expires naming the record', async () => {
    const clock = manualClock('2026-12-10T01:58:00.000Z');
    const record = { id: 'CHG-2026-1250', device: 'R2', match: {}, from: '2026-12-10T02:00', to: '2026-12-10T04:00', owner: 'AMS1 network engineer on duty', status: 'scheduled' as const };
    const t = await start({ clock, env: policyPeopleEnv(1, [record]) });
    expect((await t.ask(PLAN)).json).toMatchObject({ status: 'pending', devices: ['R1', 'R2'] });
    expect(await t.relay.decide({ incident_id: t.id, decision: 'APPROVED', who: { id: 'ana', authenticated_by: 'os_user' }, channel: 'desktop' })).toMatchObject({ status: 'accepted' });
    const changes = lab.lab.configChanges();
    clock.advance(3 * 60_000);

    const answer = await t.device.call('config_cli', { incident_id: t.id, plan: PLAN });
    expect(answer).toMatchObject({ isError: true, text: expect.stringMatching(/does not allow it now \(change record CHG-2026-1250\).*nothing was sent to any of the plan's devices \(R1, R2\)/s) });
    expect(lab.lab.configChanges()).toBe(changes);
    expect(t.relay.incidents.get(t.id)).toMatchObject({ state: 'escalated', approval_request: { status: 'expired' }, application: { status: 'none' } });
    expect(t.relay.incidents.get(t.id)!.outcome?.summary).toContain('CHG-2026-1250');
    expect(t.relay.incidents.timeline(t.id).filter((e) => e.type === 'policy.rechecked')).toEqual([expect.objectContaining({ rule: 'change record CHG-2026-1250', verdict: 'escalate', message: expect.stringContaining('Escalate to AMS1 network engineer on duty') })]);
    expect(types(t)).not.toContain('plan.applied');
  });
});

describe('a plan on two routers', () => {
  it('is asked once with one hash over both devices, applied on both and confirmed together by the post-check', async () => {
    const t = await start();
    const applied = await t.approveAndApply();
    expect(applied.isError, applied.text).toBe(false);
    const request = t.relay.incidents.get(t.id)!.approval_request!;
    expect(request.lines_sha256).toBe(planSha256(PLAN));
    expect(request.commands).toEqual(['! device R1', ...R1, '! device R2', ...R2]);
    expect(request.plan!.map((e) => [e.device, e.preview?.accepted])).toEqual([['R1', true], ['R2', true]]);
    const done = await untilIncident(t.relay, t.id, (i) => (i.plan_changes ?? []).length === 2 && i.plan_changes!.every((c) => c.state !== 'pending'));
    expect(done.plan_changes!.map((c) => c.state), JSON.stringify(t.relay.incidents.timeline(t.id).slice(-8).map((e) => e.message))).toEqual(['confirmed', 'confirmed']);
    expect(done.plan_changes!.map((c) => c.device)).toEqual(['R1', 'R2']);
    expect(entry(t, 'plan.applied')).toMatchObject({ request_id: request.request_id, devices: ['R1', 'R2'], lines_sha256: request.lines_sha256 });
    expect(entry(t, 'plan.confirmed')).toMatchObject({ request_id: request.request_id, devices: ['R1', 'R2'], by: 'post_check' });
    expect(runningOf('R2')).toContain('neighbor 10.0.0.1 description R1-transit');
  });

  it('when the second device fails, the first is put back and read back, and the incident names the device and why', async () => {
    const real = createLabDeviceTools(lab.lab);
    const failing: DeviceTools = { ...real, configProvisional: (d, c, s, o) => (d === 'R2' ? Promise.reject(new DeviceToolError('config_cli', '[rejected] R2 refused the line', deviceFailure('rejected', true, { restored: true }))) : real.configProvisional(d, c, s, o)) };
    const t = await start({ deviceTools: failing });
    const before = runningOf('R1');
    const applied = await t.approveAndApply();
    expect(applied).toMatchObject({ isError: true, text: expect.stringMatching(/NOT applied: R2 refused or failed .*Put back and read back: R1 rolled back/) });
    expect(entry(t, 'plan.failed')).toMatchObject({ devices: ['R1', 'R2'], failed_device: 'R2', reason: expect.stringContaining('R2 refused the line'), put_back: [expect.objectContaining({ device: 'R1', state: 'rolled_back' })] });
    expect(runningOf('R1')).toBe(before);
    // R2 is on the incident too: its lines refused and undone by its server, as the refusal said.
    expect(t.relay.incidents.get(t.id)!.plan_changes!.map((c) => [c.device, c.state, c.ended_by])).toEqual([['R1', 'rolled_back', 'requested'], ['R2', 'rolled_back', 'apply_failed']]);
  });

  it('is rolled back on both devices when the post-check fails', async () => {
    const t = await start();
    const before = { R1: runningOf('R1'), R2: runningOf('R2') };
    const plan = [{ device: 'R1', commands: ['router bgp 65001', 'neighbor 10.0.0.2 description still-shut'] }, { device: 'R2', commands: R2 }];
    const applied = await t.approveAndApply(plan);
    expect(applied.isError, applied.text).toBe(false);
    const done = await untilIncident(t.relay, t.id, (i) => (i.plan_changes ?? []).length === 2 && i.plan_changes!.every((c) => c.state !== 'pending'));
    expect(done.plan_changes!.map((c) => [c.device, c.state, c.ended_by])).toEqual([['R1', 'rolled_back', 'post_check_failed'], ['R2', 'rolled_back', 'post_check_failed']]);
    expect(entry(t, 'plan.rolled_back')).toMatchObject({ devices: ['R1', 'R2'], reason: 'post_check_failed' });
    expect({ R1: runningOf('R1'), R2: runningOf('R2') }).toEqual(before);
    // The evidence says how the plan ended on both devices, and keeps its lines grouped by device.
    const evidence = buildEvidenceBundle({ incident: done, timeline: t.relay.incidents.timeline(t.id), now: new Date() });
    expect(JSON.stringify(evidence)).toMatch(/Plan REQ-\S+ rolled back \(post-check failed[^"]*R1 rolled back: post-check failed; R2 rolled back: post-check failed/);
  });
});
