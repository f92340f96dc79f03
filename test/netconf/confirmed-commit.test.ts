import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { DeviceError } from '../../src/adapters/devices/errors';
import { loadInventory, type Inventory } from '../../src/adapters/devices/inventory';
import { approvedFragment } from '../../src/adapters/devices/netconf/fragment';
import { commit, discardChanges, editCandidate, getConfig, lock, unlock } from '../../src/adapters/devices/netconf/operations';
import { NetconfSession } from '../../src/adapters/devices/netconf/session';
import { missingFrom, sameConfig } from '../../src/adapters/devices/netconf/verify';
import { child, elements, textOf, type XmlElement } from '../../src/runbooks/xml';
import { connectSsh } from '../../src/adapters/devices/ssh-connect';
import type { NetconfLab } from '../../harness/netconf-lab/lab';
import { LAB_NS } from '../../harness/netconf-lab/plan';
import { netconfLabLeftovers } from '../../harness/netconf-lab/teardown';
import { NO_NETCONF, netconfLabForTests } from './netconf-lab-for-test';

let lab: NetconfLab;
let inventory: Inventory;

beforeAll(async () => {
  if (NO_NETCONF) return;
  lab = await netconfLabForTests();
  inventory = await loadInventory(lab.inventoryPath);
});

afterAll(async () => {
  if (!lab) return;
  await lab.stop();
  // Nothing of the lab is left: no namespace, no runtime folder, no sshd, netconfd or session process.
  expect(await netconfLabLeftovers(lab.id, lab.node.runDir)).toEqual([]);
});

const entry = () => {
  const e = inventory.devices.get('PE1')!;
  if (e.platform !== 'netconf') throw new Error('the lab writes a netconf device');
  return e;
};

/** The device server's service for the lab device, with this confirm-timeout; closed when the test ends. */
function service(confirmTimeoutS: number): DeviceService {
  const svc = new DeviceService({ ...inventory, devices: new Map([['PE1', { ...entry(), confirm_timeout_s: confirmTimeoutS }]]) });
  onTestFinished(() => svc.close());
  return svc;
}

/** A second, independent NETCONF session: how the tests look at the device from outside the service. */
async function observer(opts: { offer11?: boolean } = {}): Promise<NetconfSession> {
  const s = await NetconfSession.open(entry(), inventory.knownHostsPath, opts);
  onTestFinished(() => s.close());
  return s;
}

const neighbor = (data: XmlElement) =>
  elements(child(data, 'bgp', LAB_NS)!).find((n) => n.local === 'neighbor' && textOf(child(n, 'address', LAB_NS)) === '10.0.0.2')!;
const descriptionOf = (data: XmlElement) => textOf(child(neighbor(data), 'description', LAB_NS));

/** The approved "lines" of a change: one <config> element, as a person would approve it. */
const describeNeighbor = (text: string) => [
  '<config>',
  `  <bgp xmlns="${LAB_NS}">`,
  `    <neighbor><address>10.0.0.2</address><description>${text}</description></neighbor>`,
  '  </bgp>',
  '</config>',
];

/**
 * netconfd runs its timers (the confirm-timeout among them) only when its select loop has waited
 * 1 s with no input at all (yuma123 netconf/src/agt/agt_ncxserver.c, AGT_NCXSERVER_TIMEOUT):
 * polling it faster postpones the revert for as long as the polling lasts (measured: no revert in
 * 15 s with a get-config every 0.9 s; revert on time with one every 1.1 s). So the polls leave it
 * longer quiet than that. The pause paces the polls; what the test waits for is the observed state.
 */
const QUIET_FOR_NETCONFD_TIMERS_MS = 1_500;

/** Polls until `check` holds, up to a bound: the device's own timer decides when, the test only waits for it. */
async function until(check: () => Promise<boolean>, what: string, boundMs = 60_000): Promise<void> {
  const bound = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > bound) throw new Error(`${what}: not seen within ${boundMs / 1000} s`);
    await new Promise((r) => setTimeout(r, QUIET_FOR_NETCONFD_TIMERS_MS));
  }
}

describe.skipIf(NO_NETCONF)('NETCONF on a real netconfd over real SSH', () => {
  it('reaches netconfd through sshd\'s netconf subsystem and sees its capabilities, in both framings', async () => {
    const s = await observer();
    expect(s.framing).toBe('1.1');
    for (const cap of ['base:1.0', 'base:1.1', 'capability:candidate:1.0', 'capability:confirmed-commit:1.0', 'capability:confirmed-commit:1.1', 'capability:validate:1.1']) {
      expect(s.has(`urn:ietf:params:netconf:${cap}`)).toBe(true);
    }
    // Left open on purpose: the teardown in afterAll must also end a live session (sshd's child, netconf-subsystem).
    await NetconfSession.open(entry(), inventory.knownHostsPath);
    const old = await observer({ offer11: false });
    expect(old.framing).toBe('1.0');
    expect(sameConfig(await getConfig(old, 'running'), await getConfig(s, 'running'))).toBe(true);

    // The same port gives nothing but NETCONF: a command is refused by the sshd's ForceCommand gate.
    const client = await connectSsh(entry(), inventory.knownHostsPath);
    onTestFinished(() => void client.end());
    const exit = await new Promise<number | undefined>((resolve, reject) =>
      client.exec('id', (error, stream) => {
        if (error) return reject(error);
        let code: number | undefined;
        stream.on('exit', (c: number) => (code = c)).on('close', () => resolve(code)).resume();
      }),
    );
    expect(exit).toBe(1);
  });

  it('commit confirmed, then no confirm: the device reverts the change by itself', { timeout: 90_000 }, async () => {
    const svc = service(2);
    const look = await observer();
    const before = await getConfig(look, 'running');
    const result = await svc.config('PE1', describeNeighbor('revert-by-timer'));
    expect(result).toMatch(/read back: running holds the approved <config>/);
    expect(result).toMatch(/reverts it by itself in 2 s/);
    expect(descriptionOf(await getConfig(look, 'running'))).toBe('revert-by-timer');

    await until(async () => descriptionOf(await getConfig(look, 'running')) !== 'revert-by-timer', 'the device reverting the unconfirmed commit');
    expect(sameConfig(await getConfig(look, 'running'), before)).toBe(true);
    // The service's session is still open: the revert was the device's timer, not a session ending.
    expect(svc.pendingCommit('PE1')).toBeDefined();
    await expect(svc.cancelCommit('PE1')).resolves.toMatch(/matches the configuration before the change/);
  });

  it('commit confirmed, then confirm: the change stays, also after the session ends', async () => {
    const svc = service(600);
    const look = await observer();
    await svc.config('PE1', describeNeighbor('confirmed'));
    await expect(svc.confirmCommit('PE1')).resolves.toMatch(/confirmed: the change is permanent/);
    expect(svc.pendingCommit('PE1')).toBeUndefined();
    // Ending the session reverts an unconfirmed commit (next test); a confirmed one stays.
    await svc.close();
    expect(descriptionOf(await getConfig(look, 'running'))).toBe('confirmed');
    await expect(svc.confirmCommit('PE1')).rejects.toThrow(/no confirmed commit is waiting/);
  });

  it('an unconfirmed change is reverted when its session is lost', async () => {
    const svc = service(600);
    const look = await observer();
    const before = await getConfig(look, 'running');
    await svc.config('PE1', describeNeighbor('lost-session'));
    svc.dropSession('PE1');
    await until(async () => sameConfig(await getConfig(look, 'running'), before), 'the device reverting after the session ended');
    await expect(svc.confirmCommit('PE1')).rejects.toThrow(/too late to confirm: the session that made the change ended/);
  });

  it('cancel-commit reverts at once', async () => {
    const svc = service(600);
    const look = await observer();
    const before = await getConfig(look, 'running');
    await svc.config('PE1', describeNeighbor('to-cancel'));
    expect(descriptionOf(await getConfig(look, 'running'))).toBe('to-cancel');
    await expect(svc.cancelCommit('PE1')).resolves.toMatch(/cancelled: the confirmed commit was cancelled; running was read back and matches/);
    expect(sameConfig(await getConfig(look, 'running'), before)).toBe(true);
    // The lock was released with it: another session can lock the candidate now.
    await lock(look, 'candidate');
    await unlock(look, 'candidate');
  });

  it('a bad edit fails with the device\'s own error, the candidate discarded and running unchanged', async () => {
    const svc = service(600);
    const look = await observer();
    const before = await getConfig(look, 'running');
    const bad = ['<config>', `  <bgp xmlns="${LAB_NS}">`, '    <neighbor><address>10.0.0.2</address><remote-as>sixty-five</remote-as></neighbor>', '  </bgp>', '</config>'];
    const error = await svc.config('PE1', bad).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(DeviceError);
    expect(error).toMatchObject({ kind: 'rejected', reached: true });
    const message = (error as Error).message;
    expect(message).toMatch(/edit-config candidate refused: \[bad-element\/data-invalid\] invalid number at \S*neighbor\[frl:address='10.0.0.2'\]\/frl:remote-as/);
    expect(message).toContain('bad-value=sixty-five');
    expect(message).toMatch(/the candidate was discarded; the lock was released; running was read back and matches the configuration before the change/);
    expect(sameConfig(await getConfig(look, 'running'), before)).toBe(true);
    expect(sameConfig(await getConfig(look, 'candidate'), before)).toBe(true);
    expect(svc.pendingCommit('PE1')).toBeUndefined();
    await lock(look, 'candidate');
    await unlock(look, 'candidate');
  });

  it('netconfd\'s quirk: after <validate> of the candidate a commit answers <ok/> and applies nothing; the change flow avoids it', async () => {
    const s = await observer();
    const before = await getConfig(s, 'running');
    const fragment = approvedFragment('PE1', describeNeighbor('after-validate'));
    await lock(s, 'candidate');
    try {
      await editCandidate(s, 'PE1', fragment.text);
      await s.rpc('<validate><source><candidate/></source></validate>', 'validate candidate (the standard form)');
      await commit(s);
      // The read-back is what sees it: running does not hold the edit although the commit said <ok/>.
      expect(missingFrom(fragment.config, await getConfig(s, 'running'))).toHaveLength(1);
      expect(sameConfig(await getConfig(s, 'running'), before)).toBe(true);
    } finally {
      await discardChanges(s);
      await unlock(s, 'candidate');
    }
    // The service validates netconfd's candidate by content (operations.ts), and its commit takes.
    const svc = service(600);
    await expect(svc.config('PE1', describeNeighbor('after-validate'))).resolves.toMatch(/running holds the approved <config>/);
    await svc.cancelCommit('PE1');
  });

  it('refuses a fragment that is not one namespaced <config> element before connecting', async () => {
    const svc = service(600);
    const noNs = svc.config('PE1', ['<config><bgp><as>65009</as></bgp></config>']);
    await expect(noNs).rejects.toMatchObject({ kind: 'not_in_grammar', reached: false });
    await expect(noNs).rejects.toThrow(/<bgp> has no namespace of its own/);
    await expect(svc.config('PE1', [`<config><bgp xmlns="${LAB_NS}"><as>1</as></bgp></config>]]>]]><rpc/>`])).rejects.toThrow(/end-of-message marker/);
  });
});
