import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { runGroupTestsOnFrr } from '../../harness/raw-tests/raw-test-frr';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory } from '../../src/adapters/devices/inventory';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { repoRoot } from '../helpers/opencode';
import { GROUP_ON_FRR_TIMEOUT_MS, NO_FRR } from './frr-available';
import { frrLabForTest } from './lab-for-test';
import { detectedAlert } from './detected-alert';

/**
 * The alert definitions added after AD000002, on one real FRR lab for the whole file (starting a lab is
 * the expensive part): each fault is detected by the watcher from the router's own log line, and each
 * group's FRR test cases pass through the SSH device server (npm run raw:test -- AD000004 AD000007 --frr).
 */

async function groupOnFrr(lab: FrrLab, service: DeviceService, id: string) {
  const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), id);
  const results = await runGroupTestsOnFrr(group, lab, service);
  expect(results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.failures.join('; ')}`)).toEqual([]);
  return results;
}

describe.skipIf(NO_FRR)('new alert definitions on real FRR routers', () => {
  it('detects each fault from the router\'s own log line, then passes every FRR case of its group', { timeout: GROUP_ON_FRR_TIMEOUT_MS }, async () => {
    const lab = await frrLabForTest();
    const service = new DeviceService(await loadInventory(lab.inventoryPath));
    onTestFinished(() => service.close());

    // AD000004: the overflow line names the neighbor and the count the peer really sent.
    const overflow = await detectedAlert(lab, { fault: 'bgp_max_prefix_exceeded', device: 'R1', neighbor: '10.0.0.2' }, 'AD000004');
    expect(overflow.alert.router).toBe('R1');
    expect(overflow.alert.detection.fields).toEqual({ neighbor_ip: '10.0.0.2', prefix_count: '2', prefix_limit: '1', neighbor_as: '65002' });
    expect(overflow.alert.detection.raw).toMatch(/%MAXPFXEXCEED: No\. of IPv4 Unicast prefix received from 10\.0\.0\.2\(R2\) 2 exceed, limit 1$/);
    // No other alert meanwhile (test/unit/frr-lab/detectors.test.ts proves it line by line for the adjacency line that follows).
    expect(overflow.all.map((a) => a.detection.alert_def_id)).toEqual(['AD000004']);

    const maxPrefix = await groupOnFrr(lab, service, 'AD000004');
    expect(maxPrefix.map((r) => r.result.outcome)).toEqual(['resolved', 'escalated', 'failed', 'escalated', 'escalated', 'escalated', 'resolved', 'escalated']);
    // The operator was shown FRR's lines with the limit built from the alert's count (12 → 120).
    expect(maxPrefix[0]!.approvals[0]!.commands).toEqual([
      'router bgp 65001',
      'address-family ipv4 unicast',
      'neighbor 10.0.0.2 maximum-prefix 120',
      'exit-address-family',
      'neighbor 10.0.0.2 shutdown',
      'no neighbor 10.0.0.2 shutdown',
      'end',
    ]);

    // AD000007: FRR's connect retry with no interface to source from.
    const noSource = await detectedAlert(lab, { fault: 'bgp_update_source_missing', device: 'R1', neighbor: '10.0.0.2' }, 'AD000007');
    expect(noSource.alert.detection.fields).toEqual({ neighbor_ip: '10.0.0.2', neighbor_as: '65002' });
    expect(noSource.alert.detection.raw).toMatch(/ 10\.0\.0\.2: nexthop_set failed, resetting connection - intf \(Unknown\)$/);

    const updateSource = await groupOnFrr(lab, service, 'AD000007');
    expect(updateSource.map((r) => r.result.outcome)).toEqual(['resolved', 'escalated', 'failed', 'escalated', 'escalated', 'escalated', 'escalated', 'resolved']);
    expect(updateSource[0]!.approvals[0]!.commands).toEqual(['router bgp 65001', 'no neighbor 10.0.0.2 update-source lo9', 'end']);
  });
});
