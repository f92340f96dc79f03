import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { waitForSession } from './bgp-state';
import { ipCommand, run } from './host';
import type { FrrLabRouter, FrrLabRouters } from './lab';

/**
 * bgp_peer_unreachable on the FRR lab (faults.ts dispatches here): the peer stops answering. The peer's
 * namespace gets a blackhole route for this router's address on their link, so the peer's packets to it
 * (keepalives, SYN-ACKs, OPENs) vanish without a word: an Established session ends in a hold timer expiry
 * (3 s in this lab), and a session that was not up stays down without any NOTIFICATION reaching this router,
 * so its last reset keeps whatever ended the session before. The links and the peer's configuration stay
 * as they were: nothing here looks like an interface or a BGP fault of its own.
 */
export type UnreachableFault = Extract<FaultSpec, { fault: 'bgp_peer_unreachable' }>;

/** Builds the fault; returns once the router reports the session not Established. */
export async function applyPeerUnreachable(lab: FrrLabRouters, router: FrrLabRouter, fault: UnreachableFault): Promise<string | undefined> {
  if (fault.vrf) return 'the FRR lab makes a peer unreachable in the global table only';
  const link = router.links.find((l) => l.peerAddress === fault.neighbor);
  if (!link) return `${router.name} in the FRR lab has no neighbor ${fault.neighbor}`;
  const peer = lab.routers.find((p) => p.name === link.peer)!;
  await run(ipCommand(), ['-n', peer.namespace, 'route', 'replace', 'blackhole', `${link.address}/32`]);
  await waitForSession(lab.vtysh, router, fault.neighbor, (state) => state !== 'Established');
  return undefined;
}

/**
 * Every blackhole route the fault left, removed: the peers answer again (resetFrrLab then clears the
 * sessions). Only a route to a neighbor's own address is the fault's: the lab's routers also hold the
 * blackholes of the prefixes they advertise (`ip route 172.16.k.0/24 Null0`), which stay.
 */
export async function resetPeerUnreachable(lab: FrrLabRouters): Promise<void> {
  for (const r of lab.routers) {
    const out = await run(ipCommand(), ['-n', r.namespace, '-o', 'route', 'show', 'type', 'blackhole']);
    const dests = new Set(out.split('\n').map((line) => /^blackhole\s+(\S+)/.exec(line.trim())?.[1]));
    for (const l of r.links) {
      if (dests.has(l.peerAddress) || dests.has(`${l.peerAddress}/32`)) await run(ipCommand(), ['-n', r.namespace, 'route', 'del', 'blackhole', `${l.peerAddress}/32`]);
    }
  }
}
