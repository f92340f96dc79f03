import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { ipCommand, run } from './host';
import type { FrrLabRouter, FrrLabRouters } from './lab';
import { settle } from './settle';

/**
 * The interface faults of src/runbooks/fault-spec.ts on the FRR lab (faults.ts dispatches here), and their undoing
 * for resetFrrLab. The lab's interfaces are named after the peer: R1's link to R2 is eth-R2.
 *  - interface_admin_down (AD000003): `shutdown` on the interface in vtysh, as an operator would.
 *  - interface_link_down: the far end goes away, so this side keeps IFF_UP and loses its carrier
 *    ("is up, line protocol is down"). veth has no carrier switch, so the far end is set down in the
 *    peer's namespace; that is the peer's own administrative down (the peer's watcher may alert it for
 *    the peer's interface), while this router sees a link lost for a reason not its own.
 */
export type InterfaceFault = Extract<FaultSpec, { fault: 'interface_admin_down' | 'interface_link_down' }>;

/** The interface's state line as the router itself reports it ("Interface eth-R2 is up, line protocol is down"). */
async function interfaceState(lab: FrrLabRouters, router: string, ifname: string): Promise<string> {
  const out = await lab.vtysh(router, `show interface ${ifname}`);
  return /^Interface \S+ is .*$/m.exec(out)?.[0] ?? out.trim();
}

/**
 * Asks the router until its report of the interface satisfies `ok`; zebra logs the kernel's interface
 * events (`debug zebra kernel`, topology.ts) to the router's log, which wakes the wait (settle.ts).
 */
async function waitForInterface(lab: FrrLabRouters, router: string, ifname: string, ok: (state: string) => boolean, timeoutMs = 15_000): Promise<void> {
  const log = lab.routers.find((r) => r.name === router)?.logFile;
  const state = await settle(async () => {
    const now = await interfaceState(lab, router, ifname);
    return ok(now) ? undefined : now;
  }, timeoutMs, log ? [log] : []);
  if (state !== undefined) throw new Error(`${router} reports "${state}" for ${ifname} after ${timeoutMs / 1000} s`);
}

/** Whether the kernel has the link administratively up (IFF_UP), from `ip -o link show`. */
async function kernelUp(namespace: string, ifname: string): Promise<boolean> {
  const out = await run(ipCommand(), ['-n', namespace, '-o', 'link', 'show', 'dev', ifname]);
  return (/<([^>]*)>/.exec(out)?.[1] ?? '').split(',').includes('UP');
}

/** Builds one interface fault on the running lab; a string says why this lab cannot. */
export async function applyInterfaceFault(lab: FrrLabRouters, router: FrrLabRouter, fault: InterfaceFault): Promise<string | undefined> {
  const link = router.links.find((l) => l.ifname === fault.interface);
  if (!link) return `${router.name} in the FRR lab has no interface ${fault.interface} (its links: ${router.links.map((l) => l.ifname).join(', ')})`;
  if (fault.fault === 'interface_admin_down') {
    await lab.vtysh(router.name, 'configure terminal', `interface ${link.ifname}`, 'shutdown', 'end');
    await waitForInterface(lab, router.name, link.ifname, (s) => s.endsWith(' is down'));
    return undefined;
  }
  const peer = lab.routers.find((p) => p.name === link.peer)!;
  const farEnd = peer.links.find((l) => l.peer === router.name)!;
  await run(ipCommand(), ['-n', peer.namespace, 'link', 'set', farEnd.ifname, 'down']);
  // With a shutdown already on this side it stays "is down"; otherwise the carrier goes.
  await waitForInterface(lab, router.name, link.ifname, (s) => !s.endsWith('line protocol is up'));
  return undefined;
}

/**
 * Every lab link administratively up again on both ends, then up/up as both routers report it. Only the
 * links that are down are touched, so a clean lab (most resets) costs one `ip` call per interface.
 * `no shutdown` in vtysh also undoes a far end set down in the kernel: zebra sets IFF_UP itself.
 */
export async function resetInterfaceFaults(lab: FrrLabRouters): Promise<void> {
  const touched: Array<{ router: string; ifname: string }> = [];
  for (const r of lab.routers) {
    const down: string[] = [];
    for (const l of r.links) if (!(await kernelUp(r.namespace, l.ifname))) down.push(l.ifname);
    if (down.length === 0) continue;
    await lab.vtysh(r.name, 'configure terminal', ...down.flatMap((ifname) => [`interface ${ifname}`, 'no shutdown', 'exit']), 'end');
    for (const ifname of down) {
      const l = r.links.find((x) => x.ifname === ifname)!;
      const farEnd = lab.routers.find((p) => p.name === l.peer)!.links.find((x) => x.peer === r.name)!;
      touched.push({ router: r.name, ifname }, { router: l.peer, ifname: farEnd.ifname });
    }
  }
  for (const t of touched) await waitForInterface(lab, t.router, t.ifname, (s) => s.endsWith('line protocol is up'));
}
