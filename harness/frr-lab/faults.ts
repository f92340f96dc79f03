import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { waitForSession } from './bgp-state';
import { applyInterfaceFault } from './interface-faults';
import { applyRemoteAsMismatch } from './remote-as-faults';
import type { FrrLabRouters } from './lab';
import { applyOspfFault } from './ospf';
import { applyPeerUnreachable } from './unreachable-fault';
import { applyMtuMismatch, applyPasswordMismatch } from './mismatch-faults';
import { applyLargeDatabase } from './large-database-fault';
import { settle } from './settle';

/**
 * The lab faults (src/runbooks/fault-spec.ts) built as real FRR configuration, and the way back to a clean lab
 * between test cases. Each fault is set up the way it happens in the field (a configuration line), and
 * the function returns once the router itself reports the settled fault, as an alert would find it.
 */

export { resetFrrLab } from './lab-reset';

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
      await waitForSession(lab.vtysh, router, fault.neighbor, (state) => state.startsWith('Idle'), 30_000, fault.vrf);
      return undefined;
    }
    case 'bgp_max_prefix_exceeded': {
      if (fault.vrf) return 'the FRR lab builds prefix overflows in the global table only (FRR does not log the VRF of one)';
      // One below what the peer advertises now: the limit trips at once, with the peer's real count in the log line.
      // A session just reset (the previous case) is up before its routes arrive: wait for both, bounded.
      await waitForSession(lab.vtysh, router, fault.neighbor, 'Established', 60_000).catch(() => undefined);
      let offered = 0;
      await settle(async () => ((offered = await receivedFrom(lab, router.name, fault.neighbor)) < 1 ? 'none' : undefined), 30_000);
      if (offered < 1) return `${router.name} receives no prefixes from ${fault.neighbor}: no limit can be exceeded`;
      await lab.vtysh(router.name, 'configure terminal', `router bgp ${router.as}`, 'address-family ipv4 unicast', `neighbor ${fault.neighbor} maximum-prefix ${offered - 1}`, 'end');
      await waitForSession(lab.vtysh, router, fault.neighbor, (state) => state.startsWith('Idle'));
      return undefined;
    }
    case 'bgp_update_source_missing': {
      if (fault.vrf) return 'the FRR lab builds a missing update-source in the global table only';
      // lo9 does not exist on any lab router: FRR cannot source the connection and retries every second.
      await lab.vtysh(router.name, 'configure terminal', `router bgp ${router.as}`, `neighbor ${fault.neighbor} update-source lo9`, 'end');
      await waitForSession(lab.vtysh, router, fault.neighbor, (state) => state !== 'Established');
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
