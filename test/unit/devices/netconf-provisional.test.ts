import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceService } from '../../../src/adapters/devices/device-service';
import { loadInventory, type Inventory } from '../../../src/adapters/devices/inventory';
import type { NetconfLab } from '../../../harness/netconf-lab/lab';
import { LAB_NS } from '../../../harness/netconf-lab/plan';
import { NO_NETCONF, netconfLabForTests } from '../../netconf/netconf-lab-for-test';

let lab: NetconfLab;
let inventory: Inventory;
let svc: DeviceService;

beforeAll(async () => {
  if (NO_NETCONF) return;
  lab = await netconfLabForTests();
  inventory = await loadInventory(lab.inventoryPath);
  svc = new DeviceService(inventory);
});

afterAll(async () => {
  await svc?.close();
  await lab?.stop();
});

const describeNeighbor = (text: string) => [`<config><bgp xmlns="${LAB_NS}"><neighbor><address>10.0.0.2</address><description>${text}</description></neighbor></bgp></config>`];
const running = () => svc.exec('PE1', 'show running-config');

// Real netconfd (as test/netconf): the provisional-change tools map onto its own confirmed commit.
describe.skipIf(NO_NETCONF)('provisional changes on a NETCONF device (netconfd confirmed commit)', () => {
  it('confirm keeps the change; a second confirm is refused naming its state', async () => {
    const { change } = await svc.changes.apply('PE1', describeNeighbor('nc-confirmed'), 600);
    expect(change).toMatchObject({ device: 'PE1', state: 'pending' });
    expect(await svc.changes.confirm('PE1', change.change_id)).toMatchObject({ state: 'confirmed' });
    expect(await running()).toContain('nc-confirmed');
    await expect(svc.changes.confirm('PE1', change.change_id)).rejects.toThrow(`change ${change.change_id} was confirmed at`);
  });

  it('a requested rollback cancels the commit and reads running back; it is idempotent', async () => {
    const before = await running();
    const { change } = await svc.changes.apply('PE1', describeNeighbor('nc-rolled-back'), 600);
    await expect(svc.changes.apply('PE1', describeNeighbor('second'), 600)).rejects.toMatchObject({ kind: 'change_pending' });
    const rolled = await svc.changes.rollback('PE1', change.change_id, 'post-check failed');
    expect(rolled).toMatchObject({ state: 'rolled_back', reason: 'post-check failed', detail: expect.stringContaining('matches the configuration before the change') });
    expect(await svc.changes.rollback('PE1', change.change_id, 'again')).toEqual(rolled);
    expect(await running()).toBe(before);
  });
});
