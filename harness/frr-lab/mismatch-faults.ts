import { randomBytes } from 'node:crypto';
import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { sessionState, waitForSession } from './bgp-state';
import { ipCommand, run } from './host';
import type { FrrLabRouter, FrrLabRouters } from './lab';
import { errorText } from '../../src/core/error-body';

/**
 * The two faults whose repair needs both ends of a link or session, on the FRR lab (faults.ts dispatches
 * here), and their undoing for resetFrrLab. Both verified on FRR 8.4.4 in namespaces on this kernel:
 *  - ospf_mtu_mismatch (AD000008): the kernel MTU of one end lowered to 1400. zebra tells ospfd, which
 *    resets the interface ("Full -> Deleted (KillNbr)"); the adjacency then sticks in ExStart and the
 *    smaller end logs, every retransmit (5 s):
 *      OSPF: [XZZ9Y-NNTMQ][EC 134217741] Packet[DD]: Neighbor 192.168.255.2 MTU 1500 is larger than [eth-R2:10.0.0.1]'s MTU 1400
 *    FRR has no `mtu` interface command (zebra reads it from the kernel), so its configuration handle on
 *    the check is `ip ospf mtu-ignore`, which the runbook sets on both ends.
 *  - bgp_password_mismatch (AD000009): `neighbor X password` on one end only. The kernel does sign with
 *    TCP MD5 inside a namespace here: each end drops the other's SYN (TcpExtTCPMD5NotFound on the signing
 *    end, TcpExtTCPMD5Unexpected on the other) and the session sits in Connect/Active.
 */
export type MtuFault = Extract<FaultSpec, { fault: 'ospf_mtu_mismatch' }>;
export type PasswordFault = Extract<FaultSpec, { fault: 'bgp_password_mismatch' }>;

export const LAB_MTU = 1500;
export const FAULT_MTU = 1400;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function kernelMtu(namespace: string, ifname: string): Promise<number> {
  const out = await run(ipCommand(), ['-n', namespace, '-o', 'link', 'show', 'dev', ifname]);
  return Number(/ mtu (\d+) /.exec(out)?.[1] ?? 0);
}

/** ospfd's view of the one neighbor on an interface: its state name (ExStart, Full …) or undefined. */
async function ospfNeighborState(lab: FrrLabRouters, router: string, ifname: string): Promise<string | undefined> {
  const out = await lab.vtysh(router, 'show ip ospf neighbor json');
  const nbrs = (JSON.parse(out) as { neighbors?: Record<string, Array<{ ifaceName?: string; nbrState?: string }>> }).neighbors ?? {};
  for (const list of Object.values(nbrs)) for (const n of list) if (n.ifaceName?.startsWith(`${ifname}:`)) return n.nbrState?.split('/')[0];
  return undefined;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not so within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/** Builds the MTU mismatch; returns once ospfd reports the adjacency stuck in ExStart, as an alert would find it. */
export async function applyMtuMismatch(lab: FrrLabRouters, router: FrrLabRouter, fault: MtuFault): Promise<string | undefined> {
  const link = router.links.find((l) => l.ifname === fault.interface);
  if (!link) return `${router.name} in the FRR lab has no interface ${fault.interface} (its links: ${router.links.map((l) => l.ifname).join(', ')})`;
  await run(ipCommand(), ['-n', router.namespace, 'link', 'set', link.ifname, 'mtu', String(FAULT_MTU)]);
  try {
    await waitFor(`${router.name} ${link.ifname} adjacency in ExStart`, async () => (await ospfNeighborState(lab, router.name, link.ifname)) === 'ExStart');
  } catch (error) {
    return `${router.name} ${link.ifname} MTU lowered, but the fault did not settle: ${errorText(error)}`;
  }
  return undefined;
}

/** Every link back at the lab's MTU with the check on. */
export async function resetMtuMismatch(lab: FrrLabRouters): Promise<void> {
  for (const r of lab.routers) {
    const ignoring: string[] = [];
    for (const l of r.links) {
      if ((await kernelMtu(r.namespace, l.ifname)) !== LAB_MTU) await run(ipCommand(), ['-n', r.namespace, 'link', 'set', l.ifname, 'mtu', String(LAB_MTU)]);
      if (/MTU mismatch detection: disabled/.test(await lab.vtysh(r.name, `show ip ospf interface ${l.ifname}`))) ignoring.push(l.ifname);
    }
    if (ignoring.length) await lab.vtysh(r.name, 'configure terminal', ...ignoring.flatMap((i) => [`interface ${i}`, 'no ip ospf mtu-ignore', 'exit']), 'end');
  }
  // A stuck adjacency resumes its exchange on the next retransmit; resetOspfFaults waits for every one Full.
}

/** Builds the one-sided password; returns once the session is down, as an alert would find it. */
export async function applyPasswordMismatch(lab: FrrLabRouters, router: FrrLabRouter, fault: PasswordFault): Promise<string | undefined> {
  if (fault.vrf) return 'the FRR lab builds a password mismatch in the global table only';
  if (!router.links.some((l) => l.peerAddress === fault.neighbor)) return `${router.name} in the FRR lab has no neighbor ${fault.neighbor}`;
  // A fresh key each time: the value only has to differ from the peer's (none), and never appears anywhere else.
  await lab.vtysh(router.name, 'configure terminal', `router bgp ${router.as}`, `neighbor ${fault.neighbor} password lab-${randomBytes(6).toString('hex')}`, 'end');
  await waitForSession(lab.vtysh, router.name, fault.neighbor, (state) => state !== 'Established');
  return undefined;
}

/** No neighbor with a password on any router; only the routers that have one are reconfigured. */
export async function resetPasswords(lab: FrrLabRouters): Promise<void> {
  for (const r of lab.routers) {
    const config = await lab.vtysh(r.name, 'show running-config bgpd');
    const signed = r.links.filter((l) => new RegExp(`^ neighbor ${l.peerAddress.replace(/\./g, '\\.')} password `, 'm').test(config));
    if (signed.length === 0) continue;
    await lab.vtysh(r.name, 'configure terminal', `router bgp ${r.as}`, ...signed.map((l) => `no neighbor ${l.peerAddress} password`), 'end');
    // Without a key the connect retry (1 s) brings the session back; a clear makes sure it is not held in a long start timer.
    for (const l of signed) if ((await sessionState(lab.vtysh, r.name, l.peerAddress)) !== 'Established') await lab.vtysh(r.name, `clear ip bgp ${l.peerAddress}`);
  }
}
