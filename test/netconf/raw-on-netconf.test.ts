import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { runGroupTestsOnNetconf } from '../../harness/raw-tests/raw-test-netconf';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory } from '../../src/adapters/devices/inventory';
import type { NetconfLab } from '../../harness/netconf-lab/lab';
import { netconfLabLeftovers } from '../../harness/netconf-lab/teardown';
import { NO_NETCONF, netconfLabForTests } from './netconf-lab-for-test';

let lab: NetconfLab;
let service: DeviceService;

beforeAll(async () => {
  if (NO_NETCONF) return;
  lab = await netconfLabForTests();
  service = new DeviceService(await loadInventory(lab.inventoryPath));
});

afterAll(async () => {
  await service?.close();
  if (!lab) return;
  await lab.stop();
  expect(await netconfLabLeftovers(lab.id, lab.node.runDir)).toEqual([]);
});

describe.skipIf(NO_NETCONF)("AD000002's RAW on a NETCONF device (netconfd, candidate, confirmed commit)", () => {
  it('runs the cases marked netconf through the device service: approved → resolved, denied → escalated', async () => {
    const group = await loadArtifactGroup('intelligence-artifacts', 'AD000002');
    const results = await runGroupTestsOnNetconf(group, lab, service);
    expect(results.map((r) => [r.name, r.result.outcome, r.failures])).toEqual([
      ['admin-down, approved, resolved [netconf]', 'resolved', []],
      ['admin-down, denied, escalated [netconf]', 'escalated', []],
    ]);
    // The approved run changed the device through one confirmed commit, which the runner then confirmed.
    expect(results[0]!.result.config_changes).toBe(1);
    expect(service.pendingCommit(lab.node.name)).toBeUndefined();
    // The denied run left the device as the case set it up: the neighbor still shut.
    expect(await service.exec(lab.node.name, 'show running-config')).toMatch(/<address>10\.0\.0\.2<\/address>[\s\S]*?<shutdown>true<\/shutdown>/);
  });
});
