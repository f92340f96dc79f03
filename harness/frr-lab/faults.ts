import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { sessionState, waitForEstablished, waitForSession } from './bgp-state';
import { applyInterfaceFault, resetInterfaceFaults } from './interface-faults';
import { applyRemoteAsMismatch, resetRemoteAs } from './remote-as-faults';
import type { FrrLabRouters } from './lab';
import { applyOspfFault, resetOspfFaults } from './ospf';
import { applyPeerUnreachable, resetPeerUnreachable } from './unreachable-fault';
import { applyMtuMismatch, applyPasswordMismatch, resetMtuMismatch, resetPasswords } from './mismatch-faults';
import { applyLargeDatabase, resetLargeDatabase } from './large-database-fault';

/**
 * The lab faults (src/runbooks/fault-spec.ts) built as real FRR configuration, and the way back to a clean lab
 * between test cases. Each fault is set up the way it happens in the field (a configuration line), and
 * the function returns once the router itself reports the settled fault, as an alert would find it.
 */

/** Every session back up, no leftover limits: what each test case starts from. */
export async function resetFrrLab(lab: FrrLabRouters): Promise<void> {
  // Links first: no session can come back over a link that is down (interface-faults.ts).
  await resetInterfaceFaults(lab);
  await resetPeerUnreachable(lab);
  await resetRemoteAs(lab);
  await resetPasswords(lab);
  for (const r of lab.routers) {
    const peers = r.links.map((l) => l.peerAddress);
    await lab.vtysh(r.name, 'configure terminal', `router bgp ${r.as}`, ...peers.map((p) => `no neighbor ${p} shutdown`), 'end');
    // `no … maximum-prefix` and `no … update-source` are accepted when none is set, so they run unconditionally.
    await lab.vtysh(r.name, 'configure terminal', `router bgp ${r.as}`, ...peers.map((p) => `no neighbor ${p} update-source`), 'address-family ipv4 unicast', ...peers.map((p) => `no neighbor ${p} maximum-prefix`), 'end');
    if (r.vrf) await lab.vtysh(r.name, 'configure terminal', `router bgp ${r.as} vrf ${r.vrf.name}`, `no neighbor ${r.vrf.peerAddress} shutdown`, 'end');
    // Only a reset brings back a session that is not up: one held down by a prefix overflow stays Idle
    // (PfxCt) after the limit is removed, and every NOTIFICATION a router sends doubles its wait before it
    // connects again (FRR's start timer, up to 120 s: a rejected OPEN every second for 30 s means a minute
    // idle). `clear` puts that wait back to 1 s, so the lab converges in seconds whatever the last case did.
    for (const p of peers) {
      if ((await sessionState(lab.vtysh, r.name, p)) !== 'Established') await lab.vtysh(r.name, `clear ip bgp ${p}`);
    }
  }
  await waitForEstablished(lab.routers, lab.vtysh);
  // No router's database swollen (large-database-fault.ts), every link at the lab's MTU with the check on
  // (mismatch-faults.ts), then no passive interface left, every adjacency Full again (ospf.ts).
  await resetLargeDatabase(lab);
  await resetMtuMismatch(lab);
  await resetOspfFaults(lab);
}

async function receivedFrom(lab: FrrLabRouters, router: string, neighbor: string): Promise<number> {
  const out = await lab.vtysh(router, 'show bgp summary json');
  const peers = (JSON.parse(out) as { ipv4Unicast?: { peers?: Record<string, { pfxRcd?: number }> } }).ipv4Unicast?.peers ?? {};
  return peers[neighbor]?.pfxRcd ?? 0;
}

/** Builds one fault on the running lab; a string says why this lab cannot. */
export async function applyFrrFault(lab: FrrLabRouters, fault: FaultSpec): Promise<string | undefined> {
  const router = lab.routers.find((r) => r.name === fault.device);
  if (!router) return `no router ${fault.device} in the FRR lab`;
  switch (fault.fault) {
    case 'bgp_neighbor_admin_down': {
      if (fault.vrf && fault.vrf !== router.vrf?.name) return `the FRR lab has no VRF ${fault.vrf} on ${router.name}`;
      const context = fault.vrf ? `router bgp ${router.as} vrf ${fault.vrf}` : `router bgp ${router.as}`;
      await lab.vtysh(router.name, 'configure terminal', context, `neighbor ${fault.neighbor} shutdown`, 'end');
      // FRR passes through "Clearing" for a moment; the scenario is the settled fault.
      await waitForSession(lab.vtysh, router.name, fault.neighbor, (state) => state.startsWith('Idle'), 30_000, fault.vrf);
      return undefined;
    }
    case 'bgp_max_prefix_exceeded': {
      if (fault.vrf) return 'the FRR lab builds prefix overflows in the global table only (FRR does not log the VRF of one)';
      // One below what the peer advertises now: the limit trips at once, with the peer's real count in the log line.
      // A session just reset (the previous case) is up before its routes arrive: wait for both, bounded.
      await waitForSession(lab.vtysh, router.name, fault.neighbor, 'Established', 60_000).catch(() => undefined);
      let offered = await receivedFrom(lab, router.name, fault.neighbor);
      for (const until = Date.now() + 30_000; offered < 1 && Date.now() < until; offered = await receivedFrom(lab, router.name, fault.neighbor)) {
        await new Promise((r) => setTimeout(r, 250));
      }
      if (offered < 1) return `${router.name} receives no prefixes from ${fault.neighbor}: no limit can be exceeded`;
      await lab.vtysh(router.name, 'configure terminal', `router bgp ${router.as}`, 'address-family ipv4 unicast', `neighbor ${fault.neighbor} maximum-prefix ${offered - 1}`, 'end');
      await waitForSession(lab.vtysh, router.name, fault.neighbor, (state) => state.startsWith('Idle'));
      return undefined;
    }
    case 'bgp_update_source_missing': {
      if (fault.vrf) return 'the FRR lab builds a missing update-source in the global table only';
      // lo9 does not exist on any lab router: FRR cannot source the connection and retries every second.
      await lab.vtysh(router.name, 'configure terminal', `router bgp ${router.as}`, `neighbor ${fault.neighbor} update-source lo9`, 'end');
      await waitForSession(lab.vtysh, router.name, fault.neighbor, (state) => state !== 'Established');
      return undefined;
    }
    case 'interface_admin_down':
    case 'interface_link_down':
      return applyInterfaceFault(lab, router, fault);
    case 'bgp_remote_as_mismatch':
      return applyRemoteAsMismatch(lab, router, fault);
    case 'bgp_peer_unreachable':
      return applyPeerUnreachable(lab, router, fault);
    case 'ospf_interface_passive':
      return applyOspfFault(lab, router, fault);
    case 'ospf_mtu_mismatch':
      return applyMtuMismatch(lab, router, fault);
    case 'ospf_large_database':
      return applyLargeDatabase(lab, router);
    case 'bgp_password_mismatch':
      return applyPasswordMismatch(lab, router, fault);
    case 'device_unreachable':
      return `fault ${fault.fault} has no FRR form in this lab`;
  }
}
