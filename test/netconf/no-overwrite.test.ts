import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { FingerprintMismatch } from '../../src/runbooks/config-fingerprint';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { DeviceError } from '../../src/adapters/devices/errors';
import { loadInventory, type Inventory } from '../../src/adapters/devices/inventory';
import { getConfig } from '../../src/adapters/devices/netconf/operations';
import { NetconfSession } from '../../src/adapters/devices/netconf/session';
import { sameConfig } from '../../src/adapters/devices/netconf/verify';
import type { NetconfLab } from '../../harness/netconf-lab/lab';
import { LAB_NS } from '../../harness/netconf-lab/plan';
import { NO_NETCONF, netconfLabForTests } from './netconf-lab-for-test';
import { serviceDeviceTools } from '../../src/adapters/devices/service-tools';
import { deviceContractSuite } from '../helpers/device-contract-suite';

/**
 * No-overwrite on a real netconfd: the preview's fingerprint is of the running datastore, and the
 * change is committed only when running, read under the candidate's lock, is still that one.
 */
let lab: NetconfLab;
let inventory: Inventory;

beforeAll(async () => {
  if (NO_NETCONF) return;
  lab = await netconfLabForTests();
  inventory = await loadInventory(lab.inventoryPath);
});
afterAll(async () => lab?.stop());

function service(): DeviceService {
  const svc = new DeviceService(inventory);
  onTestFinished(() => svc.close());
  return svc;
}

const neighbor = (inner: string) => ['<config>', `  <bgp xmlns="${LAB_NS}">`, `    <neighbor><address>10.0.0.2</address>${inner}</neighbor>`, '  </bgp>', '</config>'];
const NEIGHBOR = '/bgp[as="65001"]/neighbor[address="10.0.0.2"]';

describe.skipIf(NO_NETCONF)('no-overwrite on a real netconfd', () => {
  it('running changed by another manager after the preview: nothing is committed, and the refusal says which leaves changed', async () => {
    const svc = service();
    const repair = neighbor('<shutdown>false</shutdown>');
    const preview = await svc.preview('PE1', repair);
    expect(preview.fingerprint).toMatchObject({ source: 'netconf-running' });
    expect((await svc.preview('PE1', repair)).fingerprint).toEqual(preview.fingerprint);

    // Another manager commits on PE1 meanwhile.
    const other = service();
    await other.changes.apply('PE1', neighbor('<description>by another manager</description>'), 60);
    expect(other.pendingCommit('PE1')).toBeDefined();
    await other.confirmCommit('PE1');
    const e = inventory.devices.get('PE1')!;
    if (e.platform !== 'netconf') throw new Error('the lab writes a netconf device');
    const look = await NetconfSession.open(e, inventory.knownHostsPath);
    onTestFinished(() => look.close());
    const before = await getConfig(look, 'running');

    const refused = await svc.changes.apply('PE1', repair, 60, preview.fingerprint!.sha256).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DeviceError);
    expect((refused as DeviceError).kind).toBe('fingerprint_mismatch');
    const detail = FingerprintMismatch.parse((refused as DeviceError).detail);
    expect(detail).toMatchObject({ device: 'PE1', before_sha256: preview.fingerprint!.sha256, diff_known: true });
    expect(detail.changed).toContain(`+ ${NEIGHBOR}/description = by another manager`);
    expect(sameConfig(await getConfig(look, 'running'), before)).toBe(true);

    // Previewed again, as it is now: committed.
    const again = await svc.preview('PE1', repair);
    expect(again.fingerprint!.sha256).toBe(detail.now_sha256);
    const applied = await svc.changes.apply('PE1', repair, 60, again.fingerprint!.sha256);
    expect(applied.change).toMatchObject({ state: 'pending', before_sha256: again.fingerprint!.sha256 });
    await svc.changes.rollback('PE1', applied.change.change_id, 'test done');
  });
});

// The device service's NETCONF driver on a real netconfd keeps the device-tool contract (the same cases as the lab's and FRR's).
let contractService: DeviceService | undefined;
afterAll(async () => contractService?.close());
deviceContractSuite(
  'a real netconfd through the device service',
  () => ({
    tools: serviceDeviceTools((contractService ??= new DeviceService(inventory))),
    device: 'PE1',
    show: { command: 'show running-config', holds: '10.0.0.2' },
    change: neighbor('<description>contract-suite</description>'),
    marker: 'contract-suite',
    undo: ['<config xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0">', `  <bgp xmlns="${LAB_NS}">`, '    <neighbor><address>10.0.0.2</address><description nc:operation="remove"/></neighbor>', '  </bgp>', '</config>'],
    refused: neighbor('<no-such-leaf>1</no-such-leaf>'),
  }),
  { skip: NO_NETCONF, timeoutMs: 120_000 },
);
