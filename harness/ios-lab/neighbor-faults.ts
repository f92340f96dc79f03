import type { ConfigNeighbor, Device, DownReason } from './device';
import { remoteAsMismatch } from './remote-as-fault';

/**
 * BGP neighbor faults that come from the neighbor's own configuration lines, beyond `shutdown`:
 *
 * `neighbor X maximum-prefix N` (AD000004). The peer offers what the inventory says it advertises; a
 * limit below that tears the session down with a Cease 6/1 and keeps it Idle while the limit stays below
 * the offer. Real IOS-XE also wants a `clear ip bgp` (or a bounce) after raising the limit; the lab brings
 * the session back as soon as the limit allows it, which the runbook's repair (raise, then bounce) covers.
 *
 * `neighbor X update-source IF` naming an interface the router does not have (AD000007): the router
 * cannot source the TCP connection, so the session never leaves Active.
 */
export function offeredPrefixes(device: Device, n: ConfigNeighbor): number {
  return device.inventory.bgp?.neighbors.find((m) => m.address === n.address && (m.vrf ?? '') === (n.vrf ?? ''))?.prefixes_received ?? 0;
}

/** Why the neighbor's configuration keeps its session down, checked before the peer's side is. */
export function neighborConfigFault(device: Device, n: ConfigNeighbor): DownReason | null {
  if (n.maximum_prefix !== undefined && offeredPrefixes(device, n) > n.maximum_prefix) return 'max-prefix';
  if (n.update_source !== undefined && !device.config.interfaces.some((i) => i.name === n.update_source)) return 'update-source';
  if (remoteAsMismatch(device, n)) return 'bad-peer-as';
  return null;
}

/** IOS-XE's lines for the overflow: it trips on the first prefix over the limit. */
export function maxPrefixLogs(n: ConfigNeighbor, reason: DownReason): string[] {
  if (reason !== 'max-prefix' || n.maximum_prefix === undefined) return [];
  const who = n.vrf ? `${n.address} vpn vrf ${n.vrf}` : n.address;
  return [
    `%BGP-3-MAXPFXEXCEED: No. of prefix received from ${who} (afi ${n.vrf ? 2 : 0}): ${n.maximum_prefix + 1} exceed limit ${n.maximum_prefix}`,
    `%BGP-3-NOTIFICATION: sent to neighbor ${who} 6/1 (Maximum Number of Prefixes Reached) 7 bytes 00010000 0000${n.maximum_prefix.toString(16).padStart(4, '0').toUpperCase()}`,
  ];
}
