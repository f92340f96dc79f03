import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChangeStatus } from '../../src/core/changes/device-contract';
import { startDeviceServer, type RunningDeviceServer } from '../../src/adapters/devices/server';
import { waitForSession } from '../../harness/frr-lab/bgp-state';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { connectMcp } from '../helpers/mcp-client';
import { NO_FRR } from './frr-available';
import { frrLabForFile } from './lab-for-test';
import { callTool, shutdownR2, untilSettled } from './confirmed-apply-helpers';

let lab: FrrLab;
let server: RunningDeviceServer;
let mcp: Awaited<ReturnType<typeof connectMcp>>;
let base: string;

frrLabForFile({ name: 'frr-confirm', deviceServer: { journal: true } }, async (shared) => {
  ({ lab, base } = shared);
  server = shared.server!;
  mcp = await connectMcp(server.mcpUrl, server.token);
});
afterAll(async () => {
  await mcp?.close();
});

const runningConfig = () => lab.vtysh('R1', 'show running-config');
const neighbor = () => lab.vtysh('R1', 'show ip bgp neighbors 10.0.0.2');

/** Applies the BGP change provisionally over MCP: the output and the pending change the server returns. */
async function applyShutdown(confirmWithinS: number): Promise<ChangeStatus> {
  const r = await callTool(mcp.client, 'config_cli', { device: 'R1', commands: shutdownR2, confirm_within_s: confirmWithinS });
  expect(r.isError, r.text).toBe(false);
  expect(r.text).toMatch(/^R1: 2 line\(s\) applied/);
  const change = ChangeStatus.parse(r.structured);
  expect(change).toMatchObject({ device: 'R1', state: 'pending' });
  expect(Date.parse(change.deadline)).toBeGreaterThan(Date.now());
  expect(await neighbor()).toMatch(/Administratively shut down/);
  return change;
}

describe.skipIf(NO_FRR)('provisional changes on real FRR routers (confirm, rollback, deadline)', () => {
  it('a confirmed change stays: the neighbor stays shut down and the running config keeps the line', async () => {
    const change = await applyShutdown(600);
    const confirmed = await callTool(mcp.client, 'confirm_change', { device: 'R1', change_id: change.change_id });
    expect(confirmed.isError, confirmed.text).toBe(false);
    expect(confirmed.structured).toMatchObject({ change_id: change.change_id, state: 'confirmed' });
    expect(await runningConfig()).toContain('neighbor 10.0.0.2 shutdown');
    expect(await neighbor()).toMatch(/Administratively shut down/);

    // A second confirm is refused, naming the state; a rollback of a final change too.
    const again = await callTool(mcp.client, 'confirm_change', { device: 'R1', change_id: change.change_id });
    expect(again.isError).toBe(true);
    expect(again.text).toMatch(new RegExp(`^\\[not_pending\\] change ${change.change_id} was confirmed at \\d{4}-\\S+: it is already final`));
    const late = await callTool(mcp.client, 'rollback_change', { device: 'R1', change_id: change.change_id, reason: 'too late' });
    expect(late.text).toContain('[not_pending]');
    expect(await runningConfig()).toContain('neighbor 10.0.0.2 shutdown');

    // Put the lab back for the next tests (plainly, not provisionally).
    const undo = await callTool(mcp.client, 'config_cli', { device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
    expect(undo.isError, undo.text).toBe(false);
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');
  });

  it('a rollback the relay asks for (post-check failed) puts the running config back as before, verified, and is idempotent', async () => {
    const before = await runningConfig();
    const change = await applyShutdown(600);
    expect(await runningConfig()).not.toBe(before);

    const rolled = await callTool(mcp.client, 'rollback_change', { device: 'R1', change_id: change.change_id, reason: 'post-check failed: 10.0.0.2 not Established' });
    expect(rolled.isError, rolled.text).toBe(false);
    expect(rolled.structured).toMatchObject({ state: 'rolled_back', reason: 'post-check failed: 10.0.0.2 not Established', detail: expect.stringContaining('matches the one before') });
    expect(await runningConfig()).toBe(before);
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');

    const again = await callTool(mcp.client, 'rollback_change', { device: 'R1', change_id: change.change_id, reason: 'again' });
    expect(again.structured).toEqual(rolled.structured);
    const confirm = await callTool(mcp.client, 'confirm_change', { device: 'R1', change_id: change.change_id });
    expect(confirm.isError).toBe(true);
    expect(confirm.text).toMatch(new RegExp(`^\\[not_pending\\] change ${change.change_id} was rolled back \\(post-check failed: 10\\.0\\.0\\.2 not Established\\) at \\d{4}-`));
  });

  it('a change not confirmed by its deadline is rolled back by the server itself, with reason deadline', async () => {
    const before = await runningConfig();
    const change = await applyShutdown(5);
    const status = await untilSettled(mcp.client, 'R1', change.change_id);
    expect(status).toMatchObject({ change_id: change.change_id, state: 'rolled_back', reason: 'deadline' });
    expect(await runningConfig()).toBe(before);
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');
    const confirm = await callTool(mcp.client, 'confirm_change', { device: 'R1', change_id: change.change_id });
    expect(confirm.text).toMatch(new RegExp(`^\\[not_pending\\] change ${change.change_id} was rolled back \\(deadline\\) at `));
  });

  it('refuses a second provisional change on a device with one pending, sending nothing; and an unknown change id', async () => {
    const change = await applyShutdown(600);
    const during = await runningConfig();
    const second = await callTool(mcp.client, 'config_cli', { device: 'R1', commands: ['router bgp 65001', 'neighbor 10.0.0.2 description second'], confirm_within_s: 60 });
    expect(second.isError).toBe(true);
    expect(second.text).toMatch(new RegExp(`^\\[change_pending\\] R1: change ${change.change_id} is pending until `));
    expect(await runningConfig()).toBe(during);
    const unknown = await callTool(mcp.client, 'change_status', { device: 'R1', change_id: 'chg-000000000000' });
    expect(unknown.text).toBe('[not_pending] change chg-000000000000 is unknown on R1');
    const rolled = await callTool(mcp.client, 'rollback_change', { device: 'r1', change_id: change.change_id, reason: 'cleanup' });
    expect(rolled.structured).toMatchObject({ state: 'rolled_back' });
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');
  });

  it('a change pending when its SSH session drops is rolled back on a fresh session, with reason session_lost', async () => {
    const before = await runningConfig();
    const change = await applyShutdown(600);
    // Kill R1's per-connection sshd processes (children of its listener): the router's side of the session is gone.
    const listener = (JSON.parse(readFileSync(join(lab.dir, 'state.json'), 'utf8')) as { processes: Array<{ pid: number }> }).processes[0]!.pid;
    execFileSync('/usr/bin/pkill', ['-P', String(listener)]);
    const status = await untilSettled(mcp.client, 'R1', change.change_id);
    expect(status).toMatchObject({ state: 'rolled_back', reason: 'session_lost', detail: expect.stringContaining('matches the one before') });
    expect(await runningConfig()).toBe(before);
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');
  });

  it('a clean stop of the server rolls pending changes back (server_stop), and a server on the same state dir still answers for them', async () => {
    const before = await runningConfig();
    const stateDir = join(base, 'state-stop');
    const other = await startDeviceServer({ inventoryPath: lab.inventoryPath, port: 0, stateDir });
    const client = await connectMcp(other.mcpUrl, other.token);
    const applied = await callTool(client.client, 'config_cli', { device: 'R1', commands: shutdownR2, confirm_within_s: 600 });
    expect(applied.isError, applied.text).toBe(false);
    const change = ChangeStatus.parse(applied.structured);
    await client.close();
    await other.stop();
    expect(await runningConfig()).toBe(before);
    const next = await startDeviceServer({ inventoryPath: lab.inventoryPath, port: 0, stateDir });
    try {
      expect(next.service.changes.status('R1', change.change_id)).toMatchObject({ state: 'rolled_back', reason: 'server_stop' });
    } finally {
      await next.stop();
    }
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');
  });
});
