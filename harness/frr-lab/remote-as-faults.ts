import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { mistypedAs } from '../ios-lab/remote-as-fault';
import type { FrrLabRouter, FrrLabRouters } from './lab';
import type { RouterView } from './router-view';
import { settle } from './settle';

/**
 * AD000006 on the FRR lab (faults.ts dispatches here): a neighbor's remote-as mistyped, so the router
 * rejects the peer's OPEN with "%NOTIFICATION: sent to neighbor … 2/2 (OPEN Message Error/Bad Peer AS)
 * 2 bytes fd ea" on every connect retry, and its way back for resetFrrLab.
 */
export type RemoteAsFault = Extract<FaultSpec, { fault: 'bgp_remote_as_mismatch' }>;

const BAD_PEER_AS = 'OPEN Message Error/Bad Peer AS';

interface NeighborJson {
  remoteAs?: number;
  lastNotificationReason?: string;
  messageStats?: { notificationsSent?: number };
}

async function neighborJson(lab: FrrLabRouters, router: string, neighbor: string): Promise<NeighborJson> {
  return ((JSON.parse(await lab.vtysh(router, `show bgp neighbors ${neighbor} json`)) as Record<string, NeighborJson>)[neighbor] ?? {});
}

/** Builds the fault; returns once the router itself reports the peer's OPEN rejected, as an alert would find it. */
export async function applyRemoteAsMismatch(lab: FrrLabRouters, router: FrrLabRouter, fault: RemoteAsFault): Promise<string | undefined> {
  if (fault.vrf) return 'the FRR lab builds a remote-as mismatch in the global table only (FRR\'s notification line names no VRF)';
  const link = router.links.find((l) => l.peerAddress === fault.neighbor);
  if (!link) return `${router.name} in the FRR lab has no neighbor ${fault.neighbor}`;
  // FRR keeps a neighbor's last notification (and its last reset) across sessions: after an earlier case
  // the session can be Established again with "Bad Peer AS" still the last one. Only a notification sent
  // after this change counts, so the count of notifications sent is taken first.
  const sentBefore = (await neighborJson(lab, router.name, fault.neighbor)).messageStats?.notificationsSent ?? 0;
  await lab.vtysh(router.name, 'configure terminal', `router bgp ${router.as}`, `neighbor ${fault.neighbor} remote-as ${mistypedAs(link.peerAs)}`, 'end');
  // The peer's next OPEN (connect retry 1 s) is the one rejected; poll the router, bounded. An Established
  // session first ends with a Cease (configuration change), which is a sent notification of another reason.
  const rejected = (n: NeighborJson) => (n.messageStats?.notificationsSent ?? 0) > sentBefore && n.lastNotificationReason === BAD_PEER_AS;
  // Each rejection is a NOTIFICATION line in the router's log, which wakes the wait (settle.ts).
  const last = await settle(
    async () => {
      const seen = await neighborJson(lab, router.name, fault.neighbor);
      return rejected(seen) ? undefined : seen.lastNotificationReason ?? 'none';
    },
    30_000,
    [router.logFile],
  );
  if (last !== undefined) throw new Error(`${router.name} did not reject ${fault.neighbor}'s OPEN within 30 s (last notification: ${last})`);
  return undefined;
}

/** Every neighbor's remote-as back to its peer's real AS (configuration lines for resetFrrLab); none when all are right. */
export function remoteAsUndo(r: FrrLabRouter, view: RouterView): string[] {
  const wrong = r.links.filter((l) => view.sessions.get(l.peerAddress)?.remoteAs !== undefined && view.sessions.get(l.peerAddress)!.remoteAs !== l.peerAs);
  return wrong.length ? [`router bgp ${r.as}`, ...wrong.map((l) => `neighbor ${l.peerAddress} remote-as ${l.peerAs}`), 'exit'] : [];
}
