import type { ConfigNeighbor, Device, Network } from './device';

/**
 * A BGP neighbor configured with a remote-as other than the AS the peer really has (AD000006): after
 * the peer renumbered, or a typo. The router rejects the peer's OPEN with a notification 2/2 (IOS-XE:
 * "peer in wrong AS") whose two data bytes are the AS the peer announced, and the session never comes
 * up until the configured remote-as is the peer's. The peer's real AS is what the inventory says it is.
 */
export function peerAs(device: Device, n: ConfigNeighbor): number | undefined {
  return device.inventory.bgp?.neighbors.find((m) => m.address === n.address && (m.vrf ?? '') === (n.vrf ?? ''))?.remote_as;
}

export function remoteAsMismatch(device: Device, n: ConfigNeighbor): boolean {
  const real = peerAs(device, n);
  return real !== undefined && n.remote_as !== real;
}

/** A typo of the AS: its last two digits swapped (65002 → 65020), or one more when that changes nothing. */
export function mistypedAs(as: number): number {
  const s = String(as);
  const swapped = Number(s.slice(0, -2) + s.slice(-1) + s.slice(-2, -1));
  return swapped === as ? as + 1 : swapped;
}

/** IOS-XE's notification for the rejected OPEN; the data is the peer's 2-byte AS in hex. */
export function badPeerAsLog(n: ConfigNeighbor, announced: number): string {
  const who = n.vrf ? `${n.address} vpn vrf ${n.vrf}` : n.address;
  return `%BGP-3-NOTIFICATION: sent to neighbor ${who} active 2/2 (peer in wrong AS) 2 bytes ${announced.toString(16).padStart(4, '0').toUpperCase()}`;
}

/**
 * The lab fault: the neighbor's remote-as mistyped. The notification is logged before the network
 * reconciles (the caller does), so it precedes the adjacency line as on a real router.
 */
export function injectRemoteAsMismatch(net: Network, device: Device, n: ConfigNeighbor, recordChange: () => void): string {
  const real = peerAs(device, n);
  if (real === undefined) throw new Error(`${device.config.hostname} has no inventory AS for neighbor ${n.address}`);
  n.remote_as = mistypedAs(real);
  recordChange();
  net.log(device, badPeerAsLog(n, real));
  return `${device.config.hostname}: neighbor ${n.address} remote-as ${n.remote_as}, the peer is AS ${real}`;
}
