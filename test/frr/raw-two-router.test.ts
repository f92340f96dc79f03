import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { runGroupTestsOnFrr } from '../../harness/raw-tests/raw-test-frr';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory } from '../../src/adapters/devices/inventory';
import { repoRoot } from '../helpers/opencode';
import { GROUP_ON_FRR_TIMEOUT_MS, NO_FRR } from './frr-available';
import { frrLabForTest } from './lab-for-test';
import { detectedAlert } from './detected-alert';

/**
 * The two runbooks whose repair is one plan over both routers (AD000008 OSPF MTU mismatch, AD000009 MD5
 * password on one end), on one real FRR lab: each fault is built as it happens in the field, the watcher
 * alerts it from the router's own log, and every FRR case of each group passes through the SSH device
 * server with the plan's second router found from the lab's inventory addresses.
 */
describe.skipIf(NO_FRR)('two-router runbooks on real FRR routers', () => {
  it('detects both faults from the routers\' own lines, then passes every FRR case with one plan over both routers', { timeout: GROUP_ON_FRR_TIMEOUT_MS }, async () => {
    const lab = await frrLabForTest();
    const service = new DeviceService(await loadInventory(lab.inventoryPath));
    onTestFinished(() => service.close());
    const groupOnFrr = async (id: string) => {
      const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), id);
      const results = await runGroupTestsOnFrr(group, lab, service);
      expect(results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.failures.join('; ')}`)).toEqual([]);
      return results;
    };

    // AD000008: the smaller end refuses the far end's database description, naming both MTUs.
    const mtu = await detectedAlert(lab, { fault: 'ospf_mtu_mismatch', device: 'R1', interface: 'eth-R2' }, 'AD000008');
    expect(mtu.alert.router).toBe('R1');
    expect(mtu.alert.detection.fields).toEqual({ interface: 'eth-R2', neighbor_id: '192.168.255.2', neighbor_mtu: '1500', local_mtu: '1400' });
    expect(mtu.alert.detection.raw).toMatch(/Packet\[DD\]: Neighbor 192\.168\.255\.2 MTU 1500 is larger than \[eth-R2:10\.0\.0\.1\]'s MTU 1400$/);
    const ospf = await groupOnFrr('AD000008');
    expect(ospf.map((r) => r.result.outcome)).toEqual(['resolved', 'escalated', 'failed', 'escalated', 'escalated', 'resolved']);
    // Ignoring the MTU did not take (R2's database packets do not fit R1's end): applied on both, still stuck.
    expect(ospf[2]!.result).toMatchObject({ config_changes: 2, summary: expect.stringContaining('did not reach Full') });
    // One approval for both ends, the far end's interface read from the far end itself.
    expect(ospf[0]!.approvals).toHaveLength(1);
    expect(ospf[0]!.approvals[0]!.plan).toEqual([
      { device: 'R1', commands: ['interface eth-R2', 'ip ospf mtu-ignore', 'end'] },
      { device: 'R2', commands: ['interface eth-R1', 'ip ospf mtu-ignore', 'end'] },
    ]);

    // AD000009: no line names the digest; the reset followed by silence does, on the changed router only.
    const md5 = await detectedAlert(lab, { fault: 'bgp_password_mismatch', device: 'R1', neighbor: '10.0.0.2' }, 'AD000009');
    expect(md5.alert.router).toBe('R1');
    expect(md5.alert.detection.fields).toEqual({ neighbor_ip: '10.0.0.2', neighbor_as: '65002' });
    expect(md5.alert.detection.raw).toMatch(/%NOTIFICATION: sent to neighbor 10\.0\.0\.2 6\/6 \(Cease\/Other Configuration Change\)/);
    expect(md5.all.map((a) => `${a.router} ${a.detection.alert_def_id}`)).toEqual(['R1 AD000009']);
    const bgp = await groupOnFrr('AD000009');
    expect(bgp.map((r) => r.result.outcome)).toEqual(['resolved', 'escalated', 'failed', 'escalated', 'escalated', 'resolved']);
    expect(bgp[0]!.approvals[0]!.plan).toEqual([
      { device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 password', 'end'] },
      { device: 'R2', commands: ['router bgp 65002', 'no neighbor 10.0.0.1 password', 'end'] },
    ]);
    // The failed plan was applied on both routers (the relay's guard puts both back; the engine only reports it).
    expect(bgp[2]!.result.config_changes).toBe(2);
  });
});
