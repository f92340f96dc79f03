import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { DeviceToolError, type DeviceTools } from '../../src/core/changes/device-contract';
import { deviceFailure } from '../../src/core/changes/device-failure';
import { createMcpDeviceTools } from '../../src/adapters/device-tools/mcp-device-tools';
import { inventoryAddressBook } from '../../src/adapters/devices/inventory-lookup';
import type { RunningDeviceServer } from '../../src/adapters/devices/server';
import { waitForSession } from '../../harness/frr-lab/bgp-state';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { untilIncident } from '../helpers/incident-waits';
import { connectMcp } from '../helpers/mcp-client';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { NO_FRR } from './frr-available';
import { frrLabForFile } from './lab-for-test';
import { decideAs } from '../helpers/decide-as';

/**
 * A plan on two real FRR routers behind the device tool server (each change in its journal): confirmed
 * on both when the post-check passes; when R2 fails, R1 is put back and read back; when the post-check
 * fails, both are put back. One lab for every case.
 */
let lab: FrrLab;
let server: RunningDeviceServer;
let project: string;
/** Holds the device server just before it sends line `line` of a change to `device` (once). */
let hold: { device: string; line: number; reached(): void; until: Promise<void> } | undefined;

/** Holds the server at the line `hold` names, once, until the case lets it go. */
const beforeLine = async (device: string, line: number) => {
  if (hold?.device !== device || hold.line !== line) return;
  const h = hold;
  hold = undefined;
  h.reached();
  await h.until;
};
frrLabForFile({ name: 'frr-plan', deviceServer: { journal: true, beforeLine } }, (shared) => {
  lab = shared.lab;
  server = shared.server!;
  project = join(shared.base, 'project');
  cpSync('intelligence-artifacts', join(project, 'intelligence-artifacts'), { recursive: true });
  const raw = join(project, 'intelligence-artifacts', 'AD000002', 'RAW.yaml');
  writeFileSync(raw, readFileSync(raw, 'utf8').replace('\nsteps:\n', '\nplan_devices:\n  - { role: peer, description: The BGP peer, find: address_owner, input: neighbor_ip }\nsteps:\n'));
});

const R1_FIX = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const R2_DESC = ['router bgp 65002', 'neighbor 10.0.0.1 description plan-R1'];
const config = async (r: string) => (await lab.vtysh(r, 'show running-config')).split('\n').filter((l) => !/^(Building configuration|Current configuration)/.test(l)).join('\n');

async function start(wrap: (tools: DeviceTools) => DeviceTools = (t) => t) {
  const tools = createMcpDeviceTools(server.mcpUrl, { token: server.token });
  const relay = await relayForTest({
    agent: createStubRuntime(),
    env: { RELAY_TOOLS_TOKEN: 'tok', RELAY_PROJECT_DIR: project },
    deviceTools: wrap(tools),
    extraChannels: () => ['desktop'],
    postCheckPaceS: 1,
    addressBook: inventoryAddressBook(lab.inventoryPath),
  });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  const device = await connectMcp(`${url}/device-mcp`, 'tok');
  const mcp = await connectMcp(`${url}/mcp`, 'tok');
  const alert = buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' });
  const payload = { ...alert, result: { ...alert.result, device_platform: 'frr' } };
  const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) })).json().incident_id as string;
  const run = async (plan: Array<{ device: string; commands: string[] }>) => {
    expect((await mcp.call('request_approval', { incident_id: id, summary: 'both ends', plan })).json).toMatchObject({ status: 'pending', devices: ['R1', 'R2'] });
    await decideAs(relay, id, 'APPROVED', 'ana@example.net');
    return device.call('config_cli', { incident_id: id, plan });
  };
  const close = async () => {
    for (const c of [device, mcp, relay]) await c.close();
    await tools.close();
  };
  return { relay, id, run, close };
}
const settled = (t: Awaited<ReturnType<typeof start>>) => untilIncident(t.relay, t.id, (i) => (i.plan_changes ?? []).length > 0 && i.plan_changes!.every((c) => c.state !== 'pending'));
const entry = (t: Awaited<ReturnType<typeof start>>, type: string) => t.relay.incidents.timeline(t.id).find((e) => e.type === type);

describe.skipIf(NO_FRR)('a change plan on two real FRR routers', () => {
  it('is confirmed on both when the post-check passes', { timeout: 180_000 }, async () => {
    await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'neighbor 10.0.0.2 shutdown');
    const t = await start();
    try {
      const applied = await t.run([{ device: 'R1', commands: R1_FIX }, { device: 'R2', commands: R2_DESC }]);
      expect(applied.isError, applied.text).toBe(false);
      const done = await settled(t);
      expect(done.plan_changes!.map((c) => [c.device, c.state])).toEqual([['R1', 'confirmed'], ['R2', 'confirmed']]);
      expect(entry(t, 'plan.confirmed')).toMatchObject({ devices: ['R1', 'R2'], by: 'post_check' });
      expect(await config('R2')).toContain('neighbor 10.0.0.1 description plan-R1');
      await waitForSession((r, ...c) => lab.vtysh(r, ...c), 'R1', '10.0.0.2', 'Established');
    } finally {
      await t.close();
    }
  });

  it('when R2 fails, R1 is put back and read back, and the incident names R2 and why', { timeout: 180_000 }, async () => {
    const before = await config('R1');
    const t = await start((tools) => ({ ...tools, configProvisional: (d, c, s, o) => (d === 'R2' ? Promise.reject(new DeviceToolError('config_cli', '[rejected] R2: % Unknown command', deviceFailure('rejected', true, { restored: true }))) : tools.configProvisional(d, c, s, o)) }));
    try {
      const applied = await t.run([{ device: 'R1', commands: ['router bgp 65001', 'neighbor 10.0.0.2 description plan-fails'] }, { device: 'R2', commands: R2_DESC }]);
      expect(applied).toMatchObject({ isError: true, text: expect.stringMatching(/NOT applied: R2 refused or failed .*R1 rolled back/) });
      expect(entry(t, 'plan.failed')).toMatchObject({ failed_device: 'R2', reason: expect.stringContaining('Unknown command'), put_back: [expect.objectContaining({ device: 'R1', state: 'rolled_back', detail: expect.stringMatching(/read back/) })] });
      expect(await config('R1')).toBe(before);
    } finally {
      await t.close();
    }
  });

  it('is rolled back on both when the post-check fails', { timeout: 180_000 }, async () => {
    const before = { R1: await config('R1'), R2: await config('R2') };
    const t = await start();
    try {
      // Shutting the session is a change the post-check (session Established) refuses.
      const applied = await t.run([{ device: 'R1', commands: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'] }, { device: 'R2', commands: ['router bgp 65002', 'neighbor 10.0.0.1 description rolled'] }]);
      expect(applied.isError, applied.text).toBe(false);
      const done = await settled(t);
      expect(done.plan_changes!.map((c) => [c.device, c.state, c.ended_by])).toEqual([['R1', 'rolled_back', 'post_check_failed'], ['R2', 'rolled_back', 'post_check_failed']]);
      expect(entry(t, 'plan.rolled_back')).toMatchObject({ devices: ['R1', 'R2'], reason: 'post_check_failed' });
      expect({ R1: await config('R1'), R2: await config('R2') }).toEqual(before);
    } finally {
      await t.close();
    }
  });

  it('the device server answers for a change by the id its caller gave it: pending while its lines are on their way, then how it ended though the apply failed; the id is never taken twice', { timeout: 120_000 }, async () => {
    const tools = createMcpDeviceTools(server.mcpUrl, { token: server.token });
    const id = 'chg-0a1b2c3d4e5f';
    const before = await config('R2');
    let release = () => undefined as void;
    try {
      const until = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<void>((resolve) => (hold = { device: 'R2', line: 1, reached: resolve, until }));
      const applying = tools.configProvisional('R2', ['router bgp 65002', 'neighbor 10.0.0.1 no-such-keyword'], 60, { changeId: id });
      applying.catch(() => undefined);
      await reached;
      // Journaled, its second line not yet sent: a caller whose answer never comes asks by its own id.
      expect(await tools.changeStatus('R2', id)).toMatchObject({ change_id: id, device: 'R2', state: 'pending' });
      release();
      await expect(applying).rejects.toMatchObject({ failure: { kind: 'rejected', reached: true, restored: true } });
      expect(await tools.changeStatus('R2', id)).toMatchObject({ state: 'rolled_back', reason: 'apply_failed', detail: expect.stringMatching(/read back and matches/) });
      await expect(tools.configProvisional('R2', R2_DESC, 60, { changeId: id })).rejects.toMatchObject({ failure: { kind: 'not_in_grammar', reached: false } });
      expect(await config('R2')).toBe(before);
    } finally {
      release();
      await tools.close();
    }
  });
});
