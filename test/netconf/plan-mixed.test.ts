import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { createMcpDeviceTools } from '../../src/adapters/device-tools/mcp-device-tools';
import { inventoryAddressBook } from '../../src/adapters/devices/inventory-lookup';
import { startDeviceServer, type RunningDeviceServer } from '../../src/adapters/devices/server';
import { commit, editCandidate, getConfig } from '../../src/adapters/devices/netconf/operations';
import { pretty } from '../../src/runbooks/xml';
import { NetconfSession } from '../../src/adapters/devices/netconf/session';
import { loadInventory } from '../../src/adapters/devices/inventory';
import { startFrrLab, type FrrLab } from '../../harness/frr-lab/lab';
import type { NetconfLab } from '../../harness/netconf-lab/lab';
import { LAB_NS } from '../../harness/netconf-lab/plan';
import { NO_FRR } from '../frr/frr-available';
import { untilIncident } from '../helpers/incident-waits';
import { connectMcp } from '../helpers/mcp-client';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { NO_NETCONF, netconfLabForTests } from './netconf-lab-for-test';
import { decideAs } from '../helpers/decide-as';

/**
 * One plan over a NETCONF device (PE1, netconfd: a confirmed commit the device reverts by itself) and a
 * real FRR router (R2, the peer the RAW finds from the alert's neighbor address: a journaled change),
 * behind one device tool server: confirmed on both when PE1's post-check passes, rolled back on both
 * when it fails, and when either device refuses its lines, the other is put back and read back.
 * One FRR lab and one NETCONF lab for every case.
 */
let frr: FrrLab;
let nc: NetconfLab;
let server: RunningDeviceServer;
let project: string;
let inventoryPath: string;

beforeAll(async () => {
  if (NO_FRR || NO_NETCONF) return;
  const base = tempDir('fault-relay-plan-mixed-');
  frr = await startFrrLab({ dir: join(base, 'frr'), routers: 2 });
  nc = await netconfLabForTests();
  // One inventory for both labs: the server reaches every device, the relay finds R2 by its address.
  const a = parse(readFileSync(frr.inventoryPath, 'utf8')) as { known_hosts: string; devices: unknown[] };
  const b = parse(readFileSync(nc.inventoryPath, 'utf8')) as { known_hosts: string; devices: unknown[] };
  const knownHosts = join(base, 'known_hosts');
  writeFileSync(knownHosts, readFileSync(a.known_hosts, 'utf8') + readFileSync(b.known_hosts, 'utf8'), { mode: 0o600 });
  inventoryPath = join(base, 'devices.yaml');
  writeFileSync(inventoryPath, stringify({ known_hosts: knownHosts, devices: [...b.devices, ...a.devices] }), { mode: 0o600 });
  server = await startDeviceServer({ inventoryPath, port: 0, stateDir: join(base, 'state') });
  project = join(base, 'project');
  cpSync('intelligence-artifacts', join(project, 'intelligence-artifacts'), { recursive: true });
  const raw = join(project, 'intelligence-artifacts', 'AD000002', 'RAW.yaml');
  writeFileSync(raw, readFileSync(raw, 'utf8').replace('\nsteps:\n', '\nplan_devices:\n  - { role: peer, description: The BGP peer, find: address_owner, input: neighbor_ip }\nsteps:\n'));
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await frr?.stop();
  await nc?.stop();
});

const neighbor = (inner: string) => ['<config>', `<bgp xmlns="${LAB_NS}">`, '<neighbor>', '<address>10.0.0.2</address>', inner, '</neighbor>', '</bgp>', '</config>'];
const PE1_FIX = neighbor('<shutdown>false</shutdown>');
const r2Describe = (text: string) => ['router bgp 65002', `neighbor 10.0.0.1 description ${text}`];

const frrConfig = async () => (await frr.vtysh('R2', 'show running-config')).split('\n').filter((l) => !/^(Building configuration|Current configuration)/.test(l)).join('\n');
/** PE1's running configuration, read by a session of its own (not the device server's). */
async function pe1Session<T>(work: (s: NetconfSession) => Promise<T>): Promise<T> {
  const inventory = await loadInventory(inventoryPath);
  const entry = inventory.devices.get('PE1')!;
  if (entry.platform !== 'netconf') throw new Error('PE1 is the NETCONF lab device');
  const s = await NetconfSession.open(entry, inventory.knownHostsPath);
  try {
    return await work(s);
  } finally {
    await s.close();
  }
}
const pe1Config = () => pe1Session(async (s) => pretty(await getConfig(s, 'running')));
/** A person changes PE1 by hand, outside the relay (a committed edit). */
const changePe1ByHand = (lines: string[]) => pe1Session(async (s) => void (await editCandidate(s, 'PE1', lines.join('\n')), await commit(s)));

type Plan = Array<{ device: string; commands: string[] }>;

async function start() {
  const tools = createMcpDeviceTools(server.mcpUrl, { token: server.token });
  const relay = await relayForTest({
    agent: createStubRuntime(),
    env: { RELAY_TOOLS_TOKEN: 'tok', RELAY_PROJECT_DIR: project },
    deviceTools: tools,
    extraChannels: () => ['desktop'],
    postCheckPaceS: 1,
    addressBook: inventoryAddressBook(inventoryPath),
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const device = await connectMcp(`${url}/device-mcp`, 'tok');
  const mcp = await connectMcp(`${url}/mcp`, 'tok');
  const alert = buildSplunkAlert({ device: 'PE1', neighbor: '10.0.0.2' });
  const payload = { ...alert, result: { ...alert.result, device_platform: 'netconf' } };
  const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) })).json().incident_id as string;
  /** Asks, approves, then (after `between`, what happens while people decide) applies the plan. */
  const run = async (plan: Plan, between: () => Promise<void> = async () => {}) => {
    expect((await mcp.call('request_approval', { incident_id: id, summary: 'both ends', plan })).json).toMatchObject({ status: 'pending', devices: plan.map((e) => e.device) });
    await decideAs(relay, id, 'APPROVED', 'ana@example.net');
    await between();
    return device.call('config_cli', { incident_id: id, plan });
  };
  const close = async () => {
    for (const c of [device, mcp, relay]) await c.close();
    await tools.close();
  };
  const settled = () => untilIncident(relay, id, (i) => (i.plan_changes ?? []).length > 0 && i.plan_changes!.every((c) => c.state !== 'pending'));
  const entry = (type: string) => relay.incidents.timeline(id).find((e) => e.type === type);
  return { relay, id, run, close, settled, entry };
}

describe.skipIf(NO_FRR || NO_NETCONF)('a change plan over a NETCONF device and a real FRR router', () => {
  it('is confirmed on both when the post-check passes: the confirmed commit on PE1, the journal on R2', { timeout: 180_000 }, async () => {
    const t = await start();
    try {
      const applied = await t.run([{ device: 'PE1', commands: PE1_FIX }, { device: 'R2', commands: r2Describe('plan-PE1') }]);
      expect(applied.isError, applied.text).toBe(false);
      const done = await t.settled();
      expect(done.plan_changes!.map((c) => [c.device, c.state])).toEqual([['PE1', 'confirmed'], ['R2', 'confirmed']]);
      expect(t.entry('plan.confirmed')).toMatchObject({ devices: ['PE1', 'R2'], by: 'post_check' });
      expect(await pe1Config()).not.toMatch(/<shutdown>true<\/shutdown>/);
      expect(await frrConfig()).toContain('neighbor 10.0.0.1 description plan-PE1');
    } finally {
      await t.close();
      await changePe1ByHand(neighbor('<shutdown>true</shutdown>'));
    }
  });

  it('is rolled back on both when the post-check fails (PE1 still shut)', { timeout: 180_000 }, async () => {
    const before = { PE1: await pe1Config(), R2: await frrConfig() };
    const t = await start();
    try {
      const applied = await t.run([{ device: 'PE1', commands: neighbor('<description>still-shut</description>') }, { device: 'R2', commands: r2Describe('rolled') }]);
      expect(applied.isError, applied.text).toBe(false);
      const done = await t.settled();
      expect(done.plan_changes!.map((c) => [c.device, c.state, c.ended_by])).toEqual([['PE1', 'rolled_back', 'post_check_failed'], ['R2', 'rolled_back', 'post_check_failed']]);
      expect(t.entry('plan.rolled_back')).toMatchObject({ devices: ['PE1', 'R2'], reason: 'post_check_failed' });
      expect({ PE1: await pe1Config(), R2: await frrConfig() }).toEqual(before);
    } finally {
      await t.close();
    }
  });

  it('when R2 refuses (changed since its preview), PE1 is put back by cancelling its confirmed commit and read back', { timeout: 180_000 }, async () => {
    const pe1Before = await pe1Config();
    const t = await start();
    try {
      const applied = await t.run([{ device: 'PE1', commands: PE1_FIX }, { device: 'R2', commands: r2Describe('never') }], async () => {
        await frr.vtysh('R2', 'configure terminal', 'router bgp 65002', 'neighbor 10.0.0.1 description changed-by-hand');
      });
      expect(applied).toMatchObject({ isError: true, text: expect.stringMatching(/NOT applied: R2 refused or failed .*PE1 rolled back/) });
      expect(t.entry('plan.failed')).toMatchObject({ failed_device: 'R2', reason: expect.stringContaining('changed since the preview'), put_back: [expect.objectContaining({ device: 'PE1', state: 'rolled_back', detail: expect.stringMatching(/read back/) })] });
      expect(await pe1Config()).toBe(pe1Before);
      expect(await frrConfig()).toContain('neighbor 10.0.0.1 description changed-by-hand');
    } finally {
      await t.close();
      await frr.vtysh('R2', 'configure terminal', 'router bgp 65002', 'no neighbor 10.0.0.1 description');
    }
  });

  it('when PE1 refuses (changed since its preview), R2 is put back from its journal and read back', { timeout: 180_000 }, async () => {
    const r2Before = await frrConfig();
    const t = await start();
    try {
      const applied = await t.run([{ device: 'R2', commands: r2Describe('never') }, { device: 'PE1', commands: PE1_FIX }], () => changePe1ByHand(neighbor('<description>changed-by-hand</description>')));
      expect(applied).toMatchObject({ isError: true, text: expect.stringMatching(/NOT applied: PE1 refused or failed .*R2 rolled back/) });
      expect(t.entry('plan.failed')).toMatchObject({ failed_device: 'PE1', reason: expect.stringContaining('changed since the preview'), put_back: [expect.objectContaining({ device: 'R2', state: 'rolled_back', detail: expect.stringMatching(/read back/) })] });
      expect(await frrConfig()).toBe(r2Before);
      expect(await pe1Config()).toMatch(/<description>changed-by-hand<\/description>[\s\S]*<shutdown>true<\/shutdown>|<shutdown>true<\/shutdown>[\s\S]*<description>changed-by-hand<\/description>/);
    } finally {
      await t.close();
    }
  });
});
