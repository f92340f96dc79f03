import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { runGroupTestsOnFrr } from '../../harness/raw-tests/raw-test-frr';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory } from '../../src/adapters/devices/inventory';
import { sessionState } from '../../harness/frr-lab/bgp-state';
import { applyFrrFault, resetFrrLab } from '../../harness/frr-lab/faults';
import { startWatcher, type AlertEvent } from '../../harness/frr-lab/watcher';
import { repoRoot } from '../helpers/opencode';
import { GROUP_ON_FRR_TIMEOUT_MS, NO_FRR } from './frr-available';
import { frrLabForTest } from './lab-for-test';

/**
 * AD000005 on real FRR routers (ospfd beside bgpd in every lab router): the passive interface is made
 * with its configuration line, the watcher alerts from each router's own AdjChg line, and the group's
 * FRR cases pass through the SSH device server (npm run raw:test -- AD000005 --frr).
 */
describe.skipIf(NO_FRR)('OSPF adjacency lost to a passive interface on real FRR routers', () => {
  it('detects the loss on both ends from their own log lines, leaves BGP alone, then passes every FRR case', { timeout: GROUP_ON_FRR_TIMEOUT_MS }, async () => {
    const lab = await frrLabForTest();
    const service = new DeviceService(await loadInventory(lab.inventoryPath));
    onTestFinished(() => service.close());

    // Both ends log the dead interval: one alert per router, the passive one and its neighbor.
    const byRouter = new Map<string, AlertEvent>();
    let bothSeen = () => {};
    const both = new Promise<void>((resolve) => (bothSeen = resolve));
    const watcher = startWatcher({
      routers: lab.routers,
      onAlert: (e) => {
        if (e.detection.alert_def_id !== 'AD000005') return;
        byRouter.set(e.router, e);
        if (byRouter.size === 2) bothSeen();
      },
    });
    try {
      expect(await applyFrrFault(lab, { fault: 'ospf_interface_passive', device: 'R1', interface: 'eth-R2' })).toBeUndefined();
      await both;
      // OSPF only carries the link subnets: the BGP session over the same link stays up.
      expect(await sessionState(lab.vtysh, 'R1', '10.0.0.2')).toBe('Established');
    } finally {
      watcher.close();
      await resetFrrLab(lab);
    }
    expect(byRouter.get('R1')!.detection.fields).toEqual({ neighbor_id: '192.168.255.2', neighbor_ip: '10.0.0.2', interface: 'eth-R2', area: '0.0.0.0' });
    expect(byRouter.get('R1')!.detection.raw).toMatch(/ AdjChg: Nbr 192\.168\.255\.2, NbrIP 10\.0\.0\.2 \(default\) on eth-R2:10\.0\.0\.1: Full -> Deleted \(InactivityTimer\)$/);
    expect(byRouter.get('R2')!.detection.fields).toEqual({ neighbor_id: '192.168.255.1', neighbor_ip: '10.0.0.1', interface: 'eth-R1', area: '0.0.0.0' });

    const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000005');
    const results = await runGroupTestsOnFrr(group, lab, service);
    expect(results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.failures.join('; ')}`)).toEqual([]);
    expect(results.map((r) => r.result.outcome)).toEqual(['resolved', 'escalated', 'failed', 'escalated', 'escalated', 'escalated', 'escalated', 'resolved', 'escalated']);
    // The operator was shown FRR's own form of the repair.
    expect(results[0]!.approvals[0]!.commands).toEqual(['interface eth-R2', 'no ip ospf passive', 'end']);
  });
});
