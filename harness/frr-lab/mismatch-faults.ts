import { randomBytes } from 'node:crypto';
import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { waitForSession } from './bgp-state';
import { ipCommand, run } from './host';
import type { FrrLabRouter, FrrLabRouters } from './lab';
import { configBlock, type RouterView } from './router-view';
import { settle } from './settle';

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

/** Builds the MTU mismatch; returns once ospfd reports the adjacency stuck in ExStart, as an alert would find it. */
export async function applyMtuMismatch(lab: FrrLabRouters, router: FrrLabRouter, fault: MtuFault): Promise<string | undefined> {
  const link = router.links.find((l) => l.ifname === fault.interface);
  if (!link) return `${router.name} in the FRR lab has no interface ${fault.interface} (its links: ${router.links.map((l) => l.ifname).join(', ')})`;
  await run(ipCommand(), ['-n', router.namespace, 'link', 'set', link.ifname, 'mtu', String(FAULT_MTU)]);
  // ospfd logs the interface reset (KillNbr) and then the DD packets it refuses, which wake the wait (settle.ts).
  const state = await settle(async () => {
    const now = await ospfNeighborState(lab, router.name, link.ifname);
    return now === 'ExStart' ? undefined : now ?? 'no neighbor';
  }, 30_000, [router.logFile]);
  if (state !== undefined) return `${router.name} ${link.ifname} MTU lowered, but the fault did not settle: the adjacency is ${state}, not ExStart, after 30 s`;
  return undefined;
}

/** Every link back at the lab's MTU in the kernel; only the links that are not are touched. */
export async function resetKernelMtu(lab: FrrLabRouters): Promise<void> {
  for (const r of lab.routers) {
    for (const l of r.links) if ((await kernelMtu(r.namespace, l.ifname)) !== LAB_MTU) await run(ipCommand(), ['-n', r.namespace, 'link', 'set', l.ifname, 'mtu', String(LAB_MTU)]);
  }
}

/**
 * The MTU check back on every link of a router (configuration lines for resetFrrLab); none when it is.
 * A stuck adjacency resumes its exchange on the next retransmit; resetFrrLab waits for every one Full.
 */
export function mtuIgnoreUndo(r: FrrLabRouter, view: RouterView): string[] {
  const ignoring = r.links.filter((l) => configBlock(view.config, `interface ${l.ifname}`).some((line) => line.trim() === 'ip ospf mtu-ignore'));
  return ignoring.flatMap((l) => [`interface ${l.ifname}`, 'no ip ospf mtu-ignore', 'exit']);
}

/** Builds the one-sided password; returns once the session is down, as an alert would find it. */
export async function applyPasswordMismatch(lab: FrrLabRouters, router: FrrLabRouter, fault: PasswordFault): Promise<string | undefined> {
  if (fault.vrf) return 'the FRR lab builds a password mismatch in the global table only';
  if (!router.links.some((l) => l.peerAddress === fault.neighbor)) return `${router.name} in the FRR lab has no neighbor ${fault.neighbor}`;
  // A fresh key each time: the value only has to differ from the peer's (none), and never appears anywhere else.
  await lab.vtysh(router.name, 'configure terminal', `router bgp ${router.as}`, `neighbor ${fault.neighbor} password lab-${randomBytes(6).toString('hex')}`, 'end');
  await waitForSession(lab.vtysh, router, fault.neighbor, (state) => state !== 'Established');
  return undefined;
}

/**
 * No neighbor with a password (configuration lines for resetFrrLab); none when no neighbor has one.
 * Without a key the connect retry (1 s) brings the session back; resetFrrLab clears every session not
 * up, so none is held in a long start timer.
 */
export function passwordUndo(r: FrrLabRouter, view: RouterView): string[] {
  const signed = r.links.filter((l) => new RegExp(`^ neighbor ${l.peerAddress.replace(/\./g, '\\.')} password `, 'm').test(view.config));
  return signed.length ? [`router bgp ${r.as}`, ...signed.map((l) => `no neighbor ${l.peerAddress} password`), 'exit'] : [];
}
