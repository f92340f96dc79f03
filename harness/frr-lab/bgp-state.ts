import { settle } from './settle';
import { logFileOf, type LabRouter } from './topology';

type Vtysh = (router: string, ...commands: string[]) => Promise<string>;

/** One BGP session as its router reports it in `show bgp … summary json`. */
export interface BgpPeer {
  state?: string;
  remoteAs?: number;
  pfxRcd?: number;
}

type Summary = { ipv4Unicast?: { peers?: Record<string, BgpPeer> } };

/** The key of a session in bgpSessions's answer: the neighbor's address, with ` vrf NAME` outside the global table. */
export const sessionKey = (neighbor: string, vrf?: string) => (vrf && vrf !== 'default' ? `${neighbor} vrf ${vrf}` : neighbor);

/** Every BGP session of a router, every VRF alike, from its answer to `show bgp vrf all summary json`. */
export function parseBgpSessions(all: unknown): Map<string, BgpPeer> {
  const sessions = new Map<string, BgpPeer>();
  for (const [vrf, summary] of Object.entries((all ?? {}) as Record<string, Summary>)) {
    for (const [neighbor, peer] of Object.entries(summary?.ipv4Unicast?.peers ?? {})) sessions.set(sessionKey(neighbor, vrf), peer);
  }
  return sessions;
}

/** Every BGP session of a router (every VRF) in one vtysh. */
export async function bgpSessions(vtysh: Vtysh, router: string): Promise<Map<string, BgpPeer>> {
  return parseBgpSessions(JSON.parse(await vtysh(router, 'show bgp vrf all summary json')));
}

/** One BGP session's state as the router itself reports it (`show bgp summary json`). */
export async function sessionState(vtysh: Vtysh, router: string, neighbor: string, vrf?: string): Promise<string> {
  const out = await vtysh(router, vrf ? `show bgp vrf ${vrf} summary json` : 'show bgp summary json');
  const peers = (JSON.parse(out) as Summary).ipv4Unicast?.peers ?? {};
  return peers[neighbor]?.state ?? 'absent';
}

/** The sessions of a router that are not Established, named for an error ("R1→10.0.0.2 Active"). */
export function sessionsDown(r: Pick<LabRouter, 'name' | 'links' | 'vrf'>, sessions: Map<string, BgpPeer>): string[] {
  const down: string[] = [];
  for (const l of r.links) {
    const state = sessions.get(sessionKey(l.peerAddress))?.state ?? 'absent';
    if (state !== 'Established') down.push(`${r.name}→${l.peerAddress} ${state}`);
  }
  if (r.vrf) {
    const state = sessions.get(sessionKey(r.vrf.peerAddress, r.vrf.name))?.state ?? 'absent';
    if (state !== 'Established') down.push(`${r.name}→${r.vrf.peerAddress} (vrf ${r.vrf.name}) ${state}`);
  }
  return down;
}

/**
 * Waits until every session of every router is Established, as the routers report it (one vtysh per
 * router per look). bgpd logs each session's ADJCHANGE to the router's log, which wakes the wait at
 * once (settle.ts); the error names the sessions still down.
 */
export async function waitForEstablished(routers: LabRouter[], vtysh: Vtysh, timeoutMs = 30_000): Promise<void> {
  const down = await settle(
    async () => {
      const left: string[] = [];
      for (const r of routers) left.push(...sessionsDown(r, await bgpSessions(vtysh, r.name)));
      return left.length > 0 ? left.join(', ') : undefined;
    },
    timeoutMs,
    routers.map(logFileOf),
  );
  if (down !== undefined) throw new Error(`BGP did not converge within ${timeoutMs / 1000} s: ${down}`);
}

/**
 * Waits for one session to reach a state (e.g. Established after a repair), as its router reports it.
 * `router` may carry its log file (a lab router): its lines then wake the wait (settle.ts).
 */
export async function waitForSession(vtysh: Vtysh, router: string | { name: string; logFile: string }, neighbor: string, want: string | ((state: string) => boolean), timeoutMs = 30_000, vrf?: string): Promise<void> {
  const name = typeof router === 'string' ? router : router.name;
  const ok = typeof want === 'string' ? (s: string) => s === want : want;
  const state = await settle(
    async () => {
      const now = await sessionState(vtysh, name, neighbor, vrf);
      return ok(now) ? undefined : now;
    },
    timeoutMs,
    typeof router === 'string' ? [] : [router.logFile],
  );
  if (state !== undefined) throw new Error(`${name}'s session to ${neighbor} is ${state}, not ${typeof want === 'string' ? want : 'as expected'}, after ${timeoutMs / 1000} s`);
}
