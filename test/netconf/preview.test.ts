import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory, type Inventory } from '../../src/adapters/devices/inventory';
import { getConfig, lock, unlock } from '../../src/adapters/devices/netconf/operations';
import { NetconfSession } from '../../src/adapters/devices/netconf/session';
import { sameConfig } from '../../src/adapters/devices/netconf/verify';
import type { NetconfLab } from '../../harness/netconf-lab/lab';
import { LAB_NS } from '../../harness/netconf-lab/plan';
import { NO_NETCONF, netconfLabForTests } from './netconf-lab-for-test';

/**
 * The NETCONF preview is the device's own dry run on a real netconfd: edit-config on the candidate,
 * validate, candidate and running compared leaf by leaf, then discard-changes. Never a commit.
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

/** An independent session: how the test looks at the device from outside the service. */
async function observer(): Promise<NetconfSession> {
  const e = inventory.devices.get('PE1')!;
  if (e.platform !== 'netconf') throw new Error('the lab writes a netconf device');
  const s = await NetconfSession.open(e, inventory.knownHostsPath);
  onTestFinished(() => s.close());
  return s;
}

const neighbor = (inner: string) => ['<config>', `  <bgp xmlns="${LAB_NS}">`, `    <neighbor><address>10.0.0.2</address>${inner}</neighbor>`, '  </bgp>', '</config>'];
// Every container is named by its first leaf (a list's key comes first in NETCONF's XML; the bgp container's is its AS).
const NEIGHBOR = '/bgp[as="65001"]/neighbor[address="10.0.0.2"]';

describe.skipIf(NO_NETCONF)('preview_config on a real netconfd (candidate dry run)', () => {
  it('shows the leaves the change adds and removes, and leaves running and the candidate as they were', async () => {
    const svc = service();
    const look = await observer();
    const before = await getConfig(look, 'running');

    const preview = await svc.preview('PE1', neighbor('<shutdown>false</shutdown><description>back up</description>'));
    expect(preview).toEqual({
      device: 'PE1',
      accepted: true,
      method: 'candidate',
      added: expect.arrayContaining([`${NEIGHBOR}/shutdown = false`, `${NEIGHBOR}/description = back up`]),
      removed: [`${NEIGHBOR}/shutdown = true`],
      problems: [],
      // Applied as a confirmed commit, the device itself reverts to the configuration before unless confirmed.
      rollback: { method: 'device_reverts', lines: [] },
      // The running datastore it was computed against: the change is committed only on that one.
      fingerprint: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), source: 'netconf-running' },
    });
    expect(preview.added).toHaveLength(2);

    // Never committed, and the candidate was discarded and unlocked: another manager can lock it now.
    expect(sameConfig(await getConfig(look, 'running'), before)).toBe(true);
    expect(sameConfig(await getConfig(look, 'candidate'), before)).toBe(true);
    await lock(look, 'candidate');
    await unlock(look, 'candidate');
  });

  it('a change the device refuses is accepted: false with the device\'s own words, and nothing changes', async () => {
    const svc = service();
    const look = await observer();
    const before = await getConfig(look, 'running');
    const preview = await svc.preview('PE1', neighbor('<remote-as>sixty-five</remote-as>'));
    expect(preview).toMatchObject({ device: 'PE1', accepted: false, method: 'candidate', added: [], removed: [] });
    expect(preview.problems.join()).toMatch(/edit-config candidate refused: .*invalid number.*remote-as/);
    expect(sameConfig(await getConfig(look, 'running'), before)).toBe(true);
    expect(sameConfig(await getConfig(look, 'candidate'), before)).toBe(true);
  });

  it('a new neighbor without its mandatory remote-as is refused by the device\'s validate', async () => {
    const look = await observer();
    const before = await getConfig(look, 'running');
    const preview = await service().preview('PE1', ['<config>', `  <bgp xmlns="${LAB_NS}">`, '    <neighbor><address>10.0.0.9</address></neighbor>', '  </bgp>', '</config>']);
    expect(preview).toMatchObject({ accepted: false, method: 'candidate' });
    expect(preview.problems.join()).toMatch(/refused: .*remote-as/);
    expect(sameConfig(await getConfig(look, 'running'), before)).toBe(true);
  });

  it('a fragment that is not one namespaced <config> is refused before connecting', async () => {
    const preview = await service().preview('PE1', ['<bgp/>']);
    expect(preview).toMatchObject({ accepted: false, problems: [expect.stringMatching(/not <config>|root element/)] });
  });
});
