import type { ConfigNeighbor, Device, Network } from './device';

/**
 * AD000009: `neighbor X password` set or changed on one end of a session only. Each router's TCP then
 * drops the other's segments (a digest missing, unexpected or wrong), keepalives stop arriving and the
 * hold timer ends the session (Network's downReason); it stays down until both ends have the same key.
 * The end whose key the segments fail logs the digest it found wanting, as IOS-XE does:
 *   %TCP-6-BADAUTH: No MD5 digest from 10.0.0.2(179) to 10.0.0.1(34571) tableid - 0
 */
export function badAuthLog(net: Network, device: Device, n: ConfigNeighbor, peerHasKey: boolean): string {
  const local = net.connectedInterface(device, n)?.ipv4?.split('/')[0] ?? '0.0.0.0';
  return `%TCP-6-BADAUTH: ${peerHasKey ? 'Invalid' : 'No'} MD5 digest from ${n.address}(179) to ${local}(34571) tableid - 0`;
}

/** The lab fault: a key only this end has (the peer's, if any, is left as it is). */
export function injectPasswordMismatch(net: Network, device: Device, n: ConfigNeighbor, recordChange: () => void): string {
  const peer = net.peer(device, n);
  n.password = `lab-${(peer?.neighbor.password ?? '').length + 7}-rotated`;
  recordChange();
  net.log(device, badAuthLog(net, device, n, !!peer?.neighbor.password));
  return `${device.config.hostname}: neighbor ${n.address} password changed on this end only; the session will not come back`;
}
