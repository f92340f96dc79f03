import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { runGroupTestsOnFrr } from '../../harness/raw-tests/raw-test-frr';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory } from '../../src/adapters/devices/inventory';
import { repoRoot } from '../helpers/opencode';
import { GROUP_ON_FRR_TIMEOUT_MS, NO_FRR } from './frr-available';
import { frrLabForTest } from './lab-for-test';

describe.skipIf(NO_FRR)('AD000002 on real FRR routers (npm run raw:test -- AD000002 --frr)', () => {
  it('passes every case marked for FRR, through the SSH device server, with the FRR variants', { timeout: GROUP_ON_FRR_TIMEOUT_MS }, async () => {
    const lab = await frrLabForTest();
    const service = new DeviceService(await loadInventory(lab.inventoryPath));
    onTestFinished(() => service.close());
    {
      const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000002');
      const results = await runGroupTestsOnFrr(group, lab, service);
      expect(results.map((r) => r.name)).toContain('admin-down, approved, resolved [frr]');
      expect(results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.failures.join('; ')}`)).toEqual([]);
      // The approved case really changed the router, with FRR's form of the repair.
      const approved = results.find((r) => r.name.startsWith('admin-down, approved'))!;
      expect(approved.approvals[0]!.commands).toEqual(['router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'end']);
      const config = approved.result.path.find((p) => p.step === 'collect_bgp_config')!;
      expect(config.command).toBe('show running-config bgpd');
      // The VRF form: FRR's own commands for a neighbor in VRF CUST-A, on real routers.
      const vrf = results.find((r) => r.name.startsWith('VRF neighbor'))!;
      expect(vrf.result.path.find((p) => p.step === 'validate_neighbor_state')?.command).toBe('show bgp vrf CUST-A neighbors 10.1.1.2');
      expect(vrf.approvals[0]!.commands).toEqual(['router bgp 65001 vrf CUST-A', 'no neighbor 10.1.1.2 shutdown', 'end']);
      // A repair that cannot take on real routers: R2 has stopped answering, the change reaches R1, the run fails.
      const notTaken = results.find((r) => r.name.startsWith('repair applied but the session stays down'))!;
      expect([notTaken.result.outcome, notTaken.result.config_changes]).toEqual(['failed', 1]);
    }
  });
});
