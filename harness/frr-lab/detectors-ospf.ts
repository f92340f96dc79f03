/**
 * AD000005 (OSPF adjacency lost because an interface became passive) in an FRR router's own log. ospfd
 * writes the line with `log-adjacency-changes` (ospf.ts):
 *   2026/11/27 01:13:53.535367 OSPF: [Y05P2-YJVXY] AdjChg: Nbr 192.168.255.2, NbrIP 10.0.0.2 (default) on eth-R2:10.0.0.1: Full -> Deleted (InactivityTimer)
 * Verified on FRR 8.4.4 in the lab: `ip ospf passive` (or the deprecated `passive-interface eth-R2` under
 * `router ospf`) stops hellos at once but keeps the neighbor until the dead interval (3 s) runs out, then
 * logs this line on the passive router and the same line on its neighbor (which cannot tell a passive
 * peer from a dead one). Both are alerted, as a saved search over the line would: the runbook confirms on
 * the device which end is passive and escalates the other. A shutdown logs "(KillNbr)" instead: AD000003's.
 * Kept apart from detectors.ts (and without importing it) so that module can register this one.
 */

/** The FS's interface format without ":" (FRR follows the name with ":<local address>"). */
const IFNAME = '[A-Za-z][A-Za-z-]*\\d+(?:[/.]\\d+)*';
const IPV4 = '(?:\\d{1,3}\\.){3}\\d{1,3}';
const STAMP = '^(\\d{4})/(\\d{2})/(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)? OSPF: (?:\\[[\\w-]+\\] )?';
const ADJCHG = new RegExp(`${STAMP}AdjChg: Nbr (?<neighbor_id>${IPV4}), NbrIP (?<neighbor_ip>${IPV4}) \\((?<vrf>[^)]*)\\) on (?<interface>${IFNAME}):${IPV4}: (?<from>\\w+) -> (?<to>\\w+) \\((?<event>\\w+)\\)$`);

export interface OspfAdjChange {
  /** Epoch seconds of the line's own stamp (FRR writes local time; the lab runs on the host's zone). */
  time: number;
  neighbor_id: string;
  neighbor_ip: string;
  vrf: string;
  interface: string;
  from: string;
  to: string;
  event: string;
}

/** ospfd's adjacency change line, or undefined for any other line. */
export function parseOspfAdjChange(line: string): OspfAdjChange | undefined {
  const m = ADJCHG.exec(line.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac] = m;
  const time = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)).getTime() / 1000 + Number(frac ?? 0);
  const g = m.groups!;
  return { time, neighbor_id: g.neighbor_id!, neighbor_ip: g.neighbor_ip!, vrf: g.vrf!, interface: g.interface!, from: g.from!, to: g.to!, event: g.event! };
}

/** The interface a line says has a Full adjacency again: the end of its AD000005 fault (the watcher's throttle). */
export function ospfAdjacencyFull(line: string): string | undefined {
  const c = parseOspfAdjChange(line);
  return c?.to === 'Full' ? c.interface : undefined;
}

/** What the FRR lab's saved search adds from its inventory: the OSPF area of a router's interface. */
export interface OspfDetectContext {
  ospfArea?: (ifname: string) => string | undefined;
}

/** The saved search "OSPF adjacency lost": one entry of detectors.ts's DETECTORS. */
export const OSPF_ADJACENCY_LOST = {
  alert_def_id: 'AD000005',
  search_name: 'OSPF adjacency lost',
  detect(line: string, ctx: OspfDetectContext = {}): { time: number; fields: Record<string, string> } | undefined {
    const c = parseOspfAdjChange(line);
    // Only a Full adjacency lost to the dead interval, in the default VRF (the FS's FRR pattern).
    if (!c || c.from !== 'Full' || c.to !== 'Deleted' || c.event !== 'InactivityTimer' || c.vrf !== 'default') return undefined;
    const area = ctx.ospfArea?.(c.interface);
    return { time: c.time, fields: { neighbor_id: c.neighbor_id, neighbor_ip: c.neighbor_ip, interface: c.interface, ...(area ? { area } : {}) } };
  },
};
