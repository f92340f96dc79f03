import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangeStatus } from '../../src/core/changes/device-contract';
import { waitForSession } from '../../harness/frr-lab/bgp-state';
import { connectMcp } from '../helpers/mcp-client';
import { tempDir } from '../helpers/temp-dir';
import { callTool, shutdownR2, spawnDevices } from './confirmed-apply-helpers';
import { frrLabForTest } from './lab-for-test';
import { NO_FRR } from './frr-available';

describe.skipIf(NO_FRR)('a provisional change when the device server is killed -9 (real FRR, npm run devices)', () => {
  it('is still journaled after the kill, and rolled back and verified when the server starts again on the same state dir', async () => {
    const lab = await frrLabForTest();
    const stateDir = join(tempDir('fault-relay-frr-state-'), 'device-changes');
    const token = randomBytes(24).toString('base64url');
    const args = ['--inventory', lab.inventoryPath, '--state-dir', stateDir];
    const before = await lab.vtysh('R1', 'show running-config');

    const first = await spawnDevices(args, token);
    const mcp = await connectMcp(first.mcpUrl, token);
    const applied = await callTool(mcp.client, 'config_cli', { device: 'R1', commands: shutdownR2, confirm_within_s: 3600 });
    expect(applied.isError, applied.text).toBe(false);
    const change = ChangeStatus.parse(applied.structured);
    await mcp.close().catch(() => undefined);

    await first.kill('SIGKILL');
    // Nothing ran after the kill: the change is still on the router, and its journal entry on disk.
    expect(await lab.vtysh('R1', 'show running-config')).toContain('neighbor 10.0.0.2 shutdown');
    expect(readdirSync(stateDir)).toContain(`pending-${change.change_id}.json`);
    const entry = JSON.parse(readFileSync(join(stateDir, `pending-${change.change_id}.json`), 'utf8')) as { before: string };
    expect(entry).toMatchObject({ change_id: change.change_id, device: 'R1', lines: shutdownR2 });
    // The journal holds R1's running config as read over SSH before the first line (vtysh here ends it with a newline).
    expect(entry.before.trim()).toBe(before.trim());

    // The restarted server answers only once it has put R1 back.
    const second = await spawnDevices(args, token);
    expect(await lab.vtysh('R1', 'show running-config')).toBe(before);
    const again = await connectMcp(second.mcpUrl, token);
    try {
      const status = await callTool(again.client, 'change_status', { device: 'R1', change_id: change.change_id });
      expect(status.structured).toMatchObject({ change_id: change.change_id, state: 'rolled_back', reason: 'server_restart', detail: expect.stringContaining('matches the one before') });
      const confirm = await callTool(again.client, 'confirm_change', { device: 'R1', change_id: change.change_id });
      expect(confirm.text).toMatch(new RegExp(`^\\[not_pending\\] change ${change.change_id} was rolled back \\(server_restart\\) at `));
    } finally {
      await again.close();
    }
    expect(readdirSync(stateDir)).not.toContain(`pending-${change.change_id}.json`);
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');
    await second.kill('SIGTERM');
  });
});
