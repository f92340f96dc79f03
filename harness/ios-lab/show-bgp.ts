import { messagesDuring, lastResetText, neighborKey, type ConfigNeighbor, type Device, type NeighborOp } from './device';
import { bgpAge } from './ios-format';

/** Output of the BGP show commands, laid out as IOS-XE 17 prints them. */

type Scope = { vrf?: string };

const inScope = (n: ConfigNeighbor, scope: Scope) => (n.vrf ?? '') === (scope.vrf ?? '');

function opOf(device: Device, n: ConfigNeighbor): NeighborOp {
  return device.neighbors.get(neighborKey(n.address, n.vrf))!;
}

function counters(op: NeighborOp, now: number) {
  const live = op.state === 'Established' ? messagesDuring(now - op.since) : 0;
  const rcvd = op.msgBase + live;
  return { rcvd, sent: Math.max(0, rcvd - (op.connections > 0 ? 1 : 0)) };
}

function received(device: Device, n: ConfigNeighbor, op: NeighborOp): number {
  if (op.state !== 'Established') return 0;
  return device.inventory.bgp?.neighbors.find((m) => m.address === n.address && (m.vrf ?? '') === (n.vrf ?? ''))?.prefixes_received ?? 0;
}

function tableVersion(device: Device): number {
  let v = 1;
  for (const op of device.neighbors.values()) v += op.connections * 7 + op.dropped * 3;
  return v;
}

export function bgpNotActive(): string {
  return '% BGP not active';
}

export function showBgpSummary(device: Device, now: number, scope: Scope): string {
  const bgp = device.config.bgp;
  if (!bgp) return bgpNotActive();
  if (scope.vrf && !device.config.vrfs.some((v) => v.name === scope.vrf)) return `% No such vrf ${scope.vrf}`;
  const neighbors = bgp.neighbors.filter((n) => inScope(n, scope));
  const tv = tableVersion(device);
  const entries = neighbors.reduce((sum, n) => sum + received(device, n, opOf(device, n)), 0) + (scope.vrf ? 1 : bgp.networks.length);
  const lines = [
    `BGP router identifier ${bgp.router_id}, local AS number ${bgp.as}`,
    `BGP table version is ${tv}, main routing table version ${tv}`,
    `${entries} network entries using ${entries * 248} bytes of memory`,
    `${entries} path entries using ${entries * 136} bytes of memory`,
    `${neighbors.length + 1}/${neighbors.length + 1} BGP path/bestpath attribute entries using ${(neighbors.length + 1) * 288} bytes of memory`,
    `${neighbors.length} BGP AS-PATH entries using ${neighbors.length * 24} bytes of memory`,
    '0 BGP route-map cache entries using 0 bytes of memory',
    '0 BGP filter-list cache entries using 0 bytes of memory',
    `BGP using ${entries * 384 + (neighbors.length + 1) * 312} total bytes of memory`,
    `BGP activity ${entries * 2}/${entries} prefixes, ${entries * 2}/${entries} paths, scan interval 60 secs`,
    '',
  ];
  if (neighbors.length === 0) return lines.join('\n');
  lines.push('Neighbor        V           AS MsgRcvd MsgSent   TblVer  InQ OutQ Up/Down  State/PfxRcd');
  for (const n of neighbors) {
    const op = opOf(device, n);
    const c = counters(op, now);
    const state =
      op.state === 'Established'
        ? String(received(device, n, op)).padStart(9)
        : ` ${n.shutdown ? 'Idle (Admin)' : op.lastReset?.reason === 'max-prefix' && op.state === 'Idle' ? 'Idle (PfxCt)' : op.state}`;
    const upDown = op.connections === 0 && op.state !== 'Established' ? 'never' : bgpAge(now - op.since);
    lines.push(
      n.address.padEnd(16) +
        '4' +
        String(n.remote_as).padStart(13) +
        String(c.rcvd).padStart(8) +
        String(c.sent).padStart(8) +
        String(op.state === 'Established' ? tv : 1).padStart(9) +
        '0'.padStart(5) +
        '0'.padStart(5) +
        ' ' +
        upDown.padEnd(8) +
        state,
    );
  }
  return lines.join('\n');
}

export function showBgpNeighbors(device: Device, now: number, scope: Scope, address?: string): string {
  const bgp = device.config.bgp;
  if (!bgp) return bgpNotActive();
  if (scope.vrf && !device.config.vrfs.some((v) => v.name === scope.vrf)) return `% No such vrf ${scope.vrf}`;
  const neighbors = bgp.neighbors.filter((n) => inScope(n, scope) && (address === undefined || n.address === address));
  if (address !== undefined && neighbors.length === 0) return '% No such neighbor or address family';
  return neighbors.map((n) => neighborDetail(device, n, now)).join('\n\n');
}

function neighborDetail(device: Device, n: ConfigNeighbor, now: number): string {
  const bgp = device.config.bgp!;
  const op = opOf(device, n);
  const up = op.state === 'Established';
  const ebgp = n.remote_as !== bgp.as;
  const inv = device.inventory.bgp?.neighbors.find((m) => m.address === n.address && (m.vrf ?? '') === (n.vrf ?? ''));
  const c = counters(op, now);
  const rcvd = received(device, n, op);
  const sentPfx = up ? (n.vrf ? 1 : bgp.networks.length) : 0;
  const af = n.vrf ? 'VPNv4 Unicast' : 'IPv4 Unicast';
  const vrfPart = n.vrf ? `  vrf ${n.vrf},` : '';
  const local = device.config.interfaces.find((i) => i.ipv4 && (i.vrf ?? '') === (n.vrf ?? '') && i.ipv4.split('/')[0] !== n.address);
  const lines: string[] = [`BGP neighbor is ${n.address},${vrfPart}  remote AS ${n.remote_as}, ${ebgp ? 'external' : 'internal'} link`];
  if (n.description) lines.push(` Description: ${n.description}`);
  if (n.shutdown) lines.push('  Administratively shut down');
  lines.push(`  BGP version 4, remote router ID ${up ? (inv?.remote_router_id ?? '0.0.0.0') : '0.0.0.0'}`);
  if (up) {
    lines.push(`  BGP state = Established, up for ${bgpAge(now - op.since)}`);
    lines.push(`  Last read 00:00:${String(Math.floor((now / 1000) % 60)).padStart(2, '0')}, last write 00:00:${String(Math.floor((now / 1000 + 17) % 60)).padStart(2, '0')}, hold time is 180, keepalive interval is 60 seconds`);
    lines.push('  Neighbor sessions:', '    1 active, is not multisession capable (disabled)');
    lines.push(
      '  Neighbor capabilities:',
      '    Route refresh: advertised and received(new)',
      '    Four-octets ASN Capability: advertised and received',
      `    Address family ${af}: advertised and received`,
      '    Enhanced Refresh Capability: advertised and received',
      '    Multisession Capability: ',
      '    Stateful switchover support enabled: NO for session 1',
    );
  } else {
    const downFor = op.connections === 0 && !op.lastReset ? '' : `, down for ${bgpAge(now - op.since)}`;
    lines.push(`  BGP state = ${op.state}${downFor}`);
    lines.push('  Neighbor sessions:', '    0 active, is not multisession capable (disabled)');
  }
  const w = (label: string, sent: number, rcvd2: number) => `    ${label.padEnd(16)}${String(sent).padStart(9)}${String(rcvd2).padStart(11)}`;
  const keep = Math.max(0, c.rcvd - 3 * Math.max(1, op.connections));
  lines.push(
    '  Message statistics:',
    '    InQ depth is 0',
    '    OutQ depth is 0',
    '',
    '                         Sent       Rcvd',
    w('Opens:', op.connections, op.connections),
    w('Notifications:', op.lastReset?.reason === 'hold-timer' || op.lastReset?.reason === 'admin' ? 1 : 0, op.lastReset?.reason === 'peer-closed' ? 1 : 0),
    w('Updates:', 2 * op.connections, 2 * op.connections),
    w('Keepalives:', Math.max(0, keep - 1), keep),
    w('Route Refresh:', 0, 0),
    w('Total:', c.sent, c.rcvd),
    '  Do log neighbor state changes (via global configuration)',
    `  Default minimum time between advertisement runs is ${ebgp ? 30 : 0} seconds`,
    '',
    ` For address family: ${af}`,
    `  Session: ${n.address}`,
    `  BGP table version ${tableVersion(device)}, neighbor version ${up ? tableVersion(device) : 1}/0`,
    '  Output queue size : 0',
    '  Index 1, Advertise bit 0',
    `  ${up ? 1 : 0} update-group member`,
    '  Slow-peer detection is disabled',
    '  Slow-peer split-update-group dynamic is disabled',
    '                                 Sent       Rcvd',
    '  Prefix activity:               ----       ----',
    `    Prefixes Current:          ${String(sentPfx).padStart(5)}${String(rcvd).padStart(11)}${rcvd ? ` (Consumes ${rcvd * 128} bytes)` : ''}`,
    `    Prefixes Total:            ${String(sentPfx * Math.max(1, op.connections)).padStart(5)}${String((inv?.prefixes_received ?? 0) * op.connections).padStart(11)}`,
    '    Implicit Withdraw:             0          0',
    `    Explicit Withdraw:             0${String((inv?.prefixes_received ?? 0) * op.dropped).padStart(11)}`,
    `    Used as bestpath:            n/a${String(rcvd).padStart(11)}`,
    '    Used as multipath:           n/a          0',
    '',
    ...(n.maximum_prefix !== undefined ? [`  Maximum prefixes allowed ${n.maximum_prefix}`, '  Threshold for warning message 75%'] : []),
    `  Number of NLRIs in the update sent: max ${sentPfx}, min 0`,
    '',
    `  Address tracking is enabled, the RIB does have a route to ${n.address}`,
    `  Connections established ${op.connections}; dropped ${op.dropped}`,
    op.lastReset ? `  Last reset ${bgpAge(now - op.lastReset.at)}, due to ${lastResetText(op.lastReset.reason)}` : '  Last reset never',
  );
  // IOS-XE's hint while the session is held down by the limit (FRR prints the same sentence).
  if (!up && op.lastReset?.reason === 'max-prefix') lines.push('  Peer had exceeded the max. no. of prefixes configured.');
  if (up && local?.ipv4) {
    lines.push(
      'Transport(tcp) path-mtu-discovery is enabled',
      'Graceful-Restart is disabled',
      'SSO is disabled',
      'Connection state is ESTAB, I/O status: 1, unread input bytes: 0',
      'Connection is ECN Disabled, Mininum incoming TTL 0, Outgoing TTL 1',
      `Local host: ${local.ipv4.split('/')[0]}, Local port: 179`,
      `Foreign host: ${n.address}, Foreign port: ${30000 + (op.connections * 7919) % 30000}`,
    );
  } else {
    lines.push('  No active TCP connection');
  }
  return lines.join('\n');
}
