import { parseBgpSessions, type BgpPeer } from './bgp-state';
import { splitJsonOutputs } from './settle';
import type { FrrLabRouters } from './lab';

/** One OSPF interface as `show ip ospf interface json` reports it. */
export interface OspfInterfaceJson {
  nbrCount?: number;
  nbrAdjacentCount?: number;
  timerPassiveIface?: boolean;
}

/**
 * What one router reports of itself, asked in one vtysh (its start-up, not the commands, is the cost):
 * every BGP session, every OSPF interface and the running configuration. Resetting the lab reads what
 * each fault left from here, and changes only what a fault left.
 */
export interface RouterView {
  sessions: Map<string, BgpPeer>;
  ospf: Record<string, OspfInterfaceJson>;
  config: string;
}

export async function readRouterView(lab: FrrLabRouters, router: string): Promise<RouterView> {
  const out = await lab.vtysh(router, 'show bgp vrf all summary json', 'show ip ospf interface json', 'show running-config');
  const { docs, rest } = splitJsonOutputs(out, 2);
  return { sessions: parseBgpSessions(docs[0]), ospf: (docs[1] as { interfaces?: Record<string, OspfInterfaceJson> }).interfaces ?? {}, config: rest };
}

/** The lines of one block of a running configuration (`router ospf`, `interface eth-R2` …), up to its `exit`. */
export function configBlock(config: string, header: string): string[] {
  const lines = config.split('\n');
  const start = lines.findIndex((l) => l.trimEnd() === header);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && /^(exit|end)\s*$/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}
