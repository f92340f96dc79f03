import type { LabRouter } from './topology';

type Vtysh = (router: string, ...commands: string[]) => Promise<string>;

/** One BGP session's state as the router itself reports it (`show bgp summary json`). */
export async function sessionState(vtysh: Vtysh, router: string, neighbor: string, vrf?: string): Promise<string> {
  const out = await vtysh(router, vrf ? `show bgp vrf ${vrf} summary json` : 'show bgp summary json');
  const peers = (JSON.parse(out) as { ipv4Unicast?: { peers?: Record<string, { state?: string }> } }).ipv4Unicast?.peers ?? {};
  return peers[neighbor]?.state ?? 'absent';
}

/**
 * Polls every router until each of its sessions is Established. There is no event to wait on from
 * outside FRR, so this asks the routers, as an engineer would; the error names the sessions still down.
 */
export async function waitForEstablished(routers: LabRouter[], vtysh: Vtysh, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const down: string[] = [];
    for (const r of routers) {
      for (const l of r.links) {
        const state = await sessionState(vtysh, r.name, l.peerAddress);
        if (state !== 'Established') down.push(`${r.name}→${l.peerAddress} ${state}`);
      }
      if (r.vrf) {
        const state = await sessionState(vtysh, r.name, r.vrf.peerAddress, r.vrf.name);
        if (state !== 'Established') down.push(`${r.name}→${r.vrf.peerAddress} (vrf ${r.vrf.name}) ${state}`);
      }
    }
    if (down.length === 0) return;
    if (Date.now() > deadline) throw new Error(`BGP did not converge within ${timeoutMs / 1000} s: ${down.join(', ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits for one session to reach a state (e.g. Established after a repair), as its router reports it. */
export async function waitForSession(vtysh: Vtysh, router: string, neighbor: string, want: string | ((state: string) => boolean), timeoutMs = 30_000, vrf?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const ok = typeof want === 'string' ? (s: string) => s === want : want;
  let state = '';
  while (!ok((state = await sessionState(vtysh, router, neighbor, vrf)))) {
    if (Date.now() > deadline) throw new Error(`${router}'s session to ${neighbor} is ${state}, not ${typeof want === 'string' ? want : 'as expected'}, after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
