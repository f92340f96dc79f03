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
async function start(deviceTools: DeviceTools) {
  const relay = await relayForTest({
    agent: createStubRuntime(),
    env: { RELAY_TOOLS_TOKEN: 'tok', RELAY_PROJECT_DIR: dir },
    store: storeIn(join(dir, 'store')),
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
  a.relay.approvals.decide(id, 'APPROVED', { id: 'ana@example.net' }, 'desktop');
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
