import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { type DeviceTools } from '../../src/core/changes/device-contract';
import { createLabDeviceTools } from '../../harness/ios-lab/lab-device-tools';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import { createPersistentStore } from '../../src/core/incidents/persistent-store';
import { labAddressBook, loadInventory } from '../../harness/ios-lab/inventory';
import { startLab } from '../../harness/ios-lab/server';
import { untilIncident } from '../helpers/incident-waits';
import { connectMcp } from '../helpers/mcp-client';
import { relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { decideAs } from '../helpers/decide-as';

/**
 * The relay dies while a plan is provisional on both routers: the relay started again on the same
 * store finds the plan, runs its post-checks and confirms it on every device (the devices' own
 * deadlines would have put both back had no relay come back).
 */
type Lab = Awaited<ReturnType<typeof startLab>>;
let lab: Lab;
let dir: string;
beforeAll(async () => {
  lab = await startLab({ port: 0, host: '127.0.0.1', convergeDelayMs: 0, logger: silent });
  dir = mkdtempSync(join(tmpdir(), 'fault-relay-plan-restart-'));
  cpSync('intelligence-artifacts', join(dir, 'intelligence-artifacts'), { recursive: true });
  const raw = join(dir, 'intelligence-artifacts', 'AD000002', 'RAW.yaml');
  writeFileSync(raw, readFileSync(raw, 'utf8').replace('\nsteps:\n', '\nplan_devices:\n  - { role: peer, description: The BGP peer, find: address_owner, input: neighbor_ip }\nsteps:\n'));
});
afterAll(async () => {
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const storeIn = (d: string) => createPersistentStore({ ...((b) => ({ backend: b.open, archive: b.archive }))(createFileBackends(d)), timelineDir: join(d, 'timelines'), retention: 1000, logger: silent });
async function start(deviceTools: DeviceTools, storeName = 'store') {
  const relay = await relayForTest({
    agent: createStubRuntime(),
    env: { RELAY_TOOLS_TOKEN: 'tok', RELAY_PROJECT_DIR: dir },
    store: storeIn(join(dir, storeName)),
    deviceTools,
    extraChannels: () => ['desktop'],
    postCheckPaceS: 0,
    addressBook: labAddressBook(await loadInventory()),
  });
  return { relay, url: await relay.listen({ port: 0, host: '127.0.0.1' }) };
}

it('a plan left provisional by a relay that died is post-checked and confirmed on every device by the next one', async () => {
  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
  const real = createLabDeviceTools(lab.lab);
  // The first relay's post-check never gets an answer: it dies with the plan pending on both routers.
  const stuck: DeviceTools = { ...real, execCli: () => new Promise<string>(() => undefined) };
  const a = await start(stuck);
  const id = (await a.relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) })).json().incident_id as string;
  const tools = await connectMcp(`${a.url}/mcp`, 'tok');
  const device = await connectMcp(`${a.url}/device-mcp`, 'tok');
  const plan = [{ device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] }, { device: 'R2', commands: ['router bgp 65002', 'neighbor 10.0.0.1 description kept'] }];
  expect((await tools.call('request_approval', { incident_id: id, summary: 'both ends', plan })).json).toMatchObject({ status: 'pending' });
  await decideAs(a.relay, id, 'APPROVED', 'ana@example.net');
  const applied = await device.call('config_cli', { incident_id: id, plan });
  expect(applied.isError, applied.text).toBe(false);
  expect(a.relay.incidents.get(id)!.plan_changes!.map((c) => c.state)).toEqual(['pending', 'pending']);
  for (const c of [device, tools]) await c.close();
  await a.relay.close().catch(() => undefined);

  const b = await start(real);
  try {
    const done = await untilIncident(b.relay, id, (i) => (i.plan_changes ?? []).every((c) => c.state !== 'pending'));
    expect(done.plan_changes!.map((c) => [c.device, c.state])).toEqual([['R1', 'confirmed'], ['R2', 'confirmed']]);
    expect(b.relay.incidents.timeline(id).find((e) => e.type === 'plan.confirmed')).toMatchObject({ devices: ['R1', 'R2'], by: 'post_check' });
  } finally {
    await b.relay.close();
  }
});

/** R1's configuration lines, without the header that says when it last changed. */
const runningR1 = () => {
  const r = lab.lab.exec('R1', 'show running-config');
  return (r.ok ? r.output : r.error).split('\n').filter((l) => !/^(Current configuration|! Last configuration change)/.test(l)).join('\n');
};

it('a relay that died between the two devices\' applies: the next one puts the first device back, read back, and the incident says the plan never went on every device', async () => {
  lab.lab.reset();
  lab.lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
  const real = createLabDeviceTools(lab.lab);
  const before = runningR1();
  // R1 takes its lines; R2's never answers: the relay is gone before the second device.
  let reachedR2!: () => void;
  const atR2 = new Promise<void>((resolve) => (reachedR2 = resolve));
  const stuck: DeviceTools = { ...real, configProvisional: (d, c, s, o) => (d === 'R2' ? (reachedR2(), new Promise<never>(() => undefined)) : real.configProvisional(d, c, s, o)) };
  const a = await start(stuck, 'store-between');
  const id = (await a.relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) })).json().incident_id as string;
  const tools = await connectMcp(`${a.url}/mcp`, 'tok');
  const device = await connectMcp(`${a.url}/device-mcp`, 'tok');
  const plan = [{ device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] }, { device: 'R2', commands: ['router bgp 65002', 'neighbor 10.0.0.1 description kept'] }];
  expect((await tools.call('request_approval', { incident_id: id, summary: 'both ends', plan })).json).toMatchObject({ status: 'pending' });
  await decideAs(a.relay, id, 'APPROVED', 'ana@example.net');
  void device.call('config_cli', { incident_id: id, plan }).catch(() => undefined);
  await atR2;
  // What the store holds when the relay dies: R1's change, and R2 named (under the relay's change id) before its lines left.
  expect(a.relay.incidents.get(id)!.plan_changes!.map((c) => [c.device, c.state, c.unanswered ?? false])).toEqual([['R1', 'pending', false], ['R2', 'pending', true]]);
  expect(runningR1()).not.toEqual(before);
  for (const c of [device, tools]) await c.close().catch(() => undefined);
  await a.relay.close().catch(() => undefined);

  const b = await start(real, 'store-between');
  try {
    const done = await untilIncident(b.relay, id, (i) => (i.plan_changes ?? []).every((c) => c.state !== 'pending'));
    // R2's server never took its lines (the lab has no change under the relay's id): the incident says R2 was not changed.
    expect(done.plan_changes!.map((c) => [c.device, c.state])).toEqual([['R1', 'rolled_back'], ['R2', 'not_applied']]);
    expect(b.relay.incidents.timeline(id).filter((e) => e.type === 'plan.rolled_back')).toEqual([
      expect.objectContaining({ devices: ['R1', 'R2'], message: expect.stringMatching(/rolled back \(the relay stopped before the plan was applied on every device \(1 of 2 changed\)\): R1 rolled back: requested; R2 not changed \(the device tool server has no record of change chg-\w+: none of its lines was sent\)/) }),
    ]);
    expect(b.relay.incidents.timeline(id).map((e) => e.type)).not.toContain('plan.confirmed');
    expect(runningR1()).toEqual(before);
  } finally {
    await b.relay.close();
  }
});
