import type { SleepingClock } from '../../src/core/clock';
import { inSubnet } from './ios-format';
import type { InventoryDevice } from './inventory';
import { maxPrefixLogs, neighborConfigFault } from './neighbor-faults';

/** The part of a router that `show running-config` prints and configuration mode edits. */
export interface DeviceConfig {
  hostname: string;
  vrfs: { name: string; rd: string }[];
  interfaces: { name: string; description?: string; ipv4?: string; vrf?: string; shutdown: boolean; mac?: string; ospf_passive?: boolean; mtu?: number; ospf_mtu_ignore?: boolean }[];
  bgp?: {
    as: number;
    router_id: string;
    networks: string[];
    neighbors: { address: string; remote_as: number; description?: string; vrf?: string; shutdown: boolean; maximum_prefix?: number; update_source?: string; password?: string }[];
  };
}
export type ConfigNeighbor = NonNullable<DeviceConfig['bgp']>['neighbors'][number];
export type ConfigInterface = DeviceConfig['interfaces'][number];

export type DownReason = 'admin' | 'peer-closed' | 'hold-timer' | 'interface-flap' | 'max-prefix' | 'update-source' | 'bad-peer-as';

export interface NeighborOp {
  state: 'Established' | 'Active' | 'Idle';
  since: number;
  connections: number;
  dropped: number;
  lastReset: { at: number; reason: DownReason } | null;
  /** Messages exchanged before the current session, so counters only grow. */
  msgBase: number;
  pending: { cancel(): void } | null;
}

export interface InterfaceOp {
  status: 'up' | 'down' | 'admin-down';
  since: number;
  pending: { cancel(): void } | null;
}

export interface Device {
  inventory: InventoryDevice;
  config: DeviceConfig;
  bootAt: number;
  lastChange: { at: number; by: string } | null;
  neighbors: Map<string, NeighborOp>;
  interfaces: Map<string, InterfaceOp>;
  logs: { at: number; text: string }[];
  faults: { unreachable: boolean; peerUnreachable: Set<string>; linkDown: Set<string>; largeDatabase: boolean };
}

export const neighborKey = (address: string, vrf?: string) => `${vrf ?? ''}|${address}`;

export function configFromInventory(d: InventoryDevice): DeviceConfig {
  return {
    hostname: d.hostname,
    vrfs: d.vrfs.map((v) => ({ ...v })),
    interfaces: d.interfaces.map((i) => ({ ...i })),
    ...(d.bgp
      ? {
          bgp: {
            as: d.bgp.as,
            router_id: d.bgp.router_id,
            networks: [...d.bgp.networks],
            neighbors: d.bgp.neighbors.map((n) => ({
              address: n.address,
              remote_as: n.remote_as,
              shutdown: n.shutdown,
              ...(n.description ? { description: n.description } : {}),
              ...(n.vrf ? { vrf: n.vrf } : {}),
            })),
          },
        }
      : {}),
  };
}

export interface NetworkTiming {
  /** From `no neighbor … shutdown` (or a cleared fault) to Established. */
  convergeDelayMs: number;
  /** From `no shutdown` on an interface to line protocol up. */
  linkDelayMs: number;
}

const hostPart = (cidr?: string) => cidr?.split('/')[0];

/**
 * All routers of the lab and the rules that tie them together: a session is up only when
 * both ends allow it, the connecting interfaces are up and the peer answers. Changes take
 * effect through `reconcile`, which logs what a router would log and schedules recovery on
 * the injected clock.
 */
export class Network {
  readonly devices = new Map<string, Device>();

  constructor(
    devices: InventoryDevice[],
    private readonly clock: SleepingClock,
    private readonly timing: NetworkTiming,
  ) {
    const now = clock.now().getTime();
    for (const inv of devices) {
      const bootAt = now - inv.uptime_s * 1000;
      const config = configFromInventory(inv);
      const device: Device = {
        inventory: inv,
        config,
        bootAt,
        lastChange: null,
        neighbors: new Map(),
        interfaces: new Map(),
        logs: [],
        faults: { unreachable: false, peerUnreachable: new Set(), linkDown: new Set(), largeDatabase: false },
      };
      for (const i of config.interfaces) {
        device.interfaces.set(i.name, { status: i.shutdown ? 'admin-down' : 'up', since: bootAt + 60_000, pending: null });
      }
      this.devices.set(inv.hostname.toLowerCase(), device);
    }
    // Sessions came up a few minutes after boot; admin-down ones never did.
    for (const device of this.devices.values()) {
      for (const n of device.config.bgp?.neighbors ?? []) {
        const up = this.downReason(device, n) === null;
        const since = device.bootAt + 180_000;
        device.neighbors.set(neighborKey(n.address, n.vrf), {
          state: up ? 'Established' : n.shutdown ? 'Idle' : 'Active',
          since,
          connections: up ? 1 : 0,
          dropped: 0,
          lastReset: null,
          msgBase: up ? 4 : 0,
          pending: null,
        });
        if (up) this.log(device, `%BGP-5-ADJCHANGE: ${who(n)} Up`, since);
      }
    }
  }

  find(hostname: string): Device | undefined {
    return this.devices.get(hostname.toLowerCase());
  }

  log(device: Device, text: string, at = this.clock.now().getTime()): void {
    device.logs.push({ at, text });
    device.logs.sort((a, b) => a.at - b.at);
    if (device.logs.length > 500) device.logs.splice(0, device.logs.length - 500);
  }

  /** The local interface a neighbor is reached through (directly connected peers only). */
  connectedInterface(device: Device, n: { address: string; vrf?: string }): ConfigInterface | undefined {
    return device.config.interfaces.find((i) => i.ipv4 && (i.vrf ?? '') === (n.vrf ?? '') && inSubnet(n.address, i.ipv4));
  }

  /** The far end of a session when that router is in the lab too. */
  peer(device: Device, n: ConfigNeighbor): { device: Device; neighbor: ConfigNeighbor } | undefined {
    const ownAddresses = new Set(device.config.interfaces.map((i) => hostPart(i.ipv4)).filter(Boolean));
    for (const other of this.devices.values()) {
      if (other === device) continue;
      if (!other.config.interfaces.some((i) => hostPart(i.ipv4) === n.address)) continue;
      const back = other.config.bgp?.neighbors.find((m) => ownAddresses.has(m.address));
      if (back) return { device: other, neighbor: back };
    }
    return undefined;
  }

  private downReason(device: Device, n: ConfigNeighbor): DownReason | null {
    if (n.shutdown) return 'admin';
    if (neighborConfigFault(device, n)) return neighborConfigFault(device, n);
    const local = this.connectedInterface(device, n);
    if (local && device.interfaces.get(local.name)?.status !== 'up') return 'interface-flap';
    if (device.faults.peerUnreachable.has(neighborKey(n.address, n.vrf))) return 'hold-timer';
    const peer = this.peer(device, n);
    if (peer) {
      if (peer.neighbor.shutdown) return 'peer-closed';
      if ((peer.neighbor.password ?? '') !== (n.password ?? '')) return 'hold-timer'; // TCP MD5 keys differ (password-fault.ts)
      const far = this.connectedInterface(peer.device, peer.neighbor);
      if (far && peer.device.interfaces.get(far.name)?.status !== 'up') return 'hold-timer';
    }
    return null;
  }

  /** Brings operational state in line with configuration and faults, on every router. */
  reconcile(): void {
    for (const device of this.devices.values()) this.reconcileInterfaces(device);
    for (const device of this.devices.values()) this.reconcileNeighbors(device);
  }

  private reconcileInterfaces(device: Device): void {
    const now = this.clock.now().getTime();
    for (const i of device.config.interfaces) {
      let op = device.interfaces.get(i.name);
      if (!op) device.interfaces.set(i.name, (op = { status: 'down', since: now, pending: null }));
      const target = i.shutdown ? 'admin-down' : device.faults.linkDown.has(i.name) ? 'down' : 'up';
      if (target === op.status) {
        op.pending?.cancel();
        op.pending = null;
        continue;
      }
      if (target === 'up') {
        if (op.pending) continue;
        if (op.status === 'admin-down') {
          op.status = 'down';
          op.since = now;
        }
        const state = op;
        state.pending = this.clock.setTimeout(() => {
          state.pending = null;
          state.status = 'up';
          state.since = this.clock.now().getTime();
          this.log(device, `%LINK-3-UPDOWN: Interface ${i.name}, changed state to up`);
          this.log(device, `%LINEPROTO-5-UPDOWN: Line protocol on Interface ${i.name}, changed state to up`);
          this.reconcile();
        }, this.timing.linkDelayMs);
        continue;
      }
      op.pending?.cancel();
      op.pending = null;
      const wasUp = op.status === 'up';
      op.status = target;
      op.since = now;
      if (target === 'admin-down') {
        this.log(device, `%LINK-5-CHANGED: Interface ${i.name}, changed state to administratively down`);
      } else {
        this.log(device, `%LINK-3-UPDOWN: Interface ${i.name}, changed state to down`);
      }
      if (wasUp) this.log(device, `%LINEPROTO-5-UPDOWN: Line protocol on Interface ${i.name}, changed state to down`);
    }
  }

  private reconcileNeighbors(device: Device): void {
    const now = this.clock.now().getTime();
    for (const n of device.config.bgp?.neighbors ?? []) {
      const key = neighborKey(n.address, n.vrf);
      const op = device.neighbors.get(key);
      if (!op) continue;
      const reason = this.downReason(device, n);
      if (reason === null) {
        if (op.state === 'Established' || op.pending) continue;
        op.state = 'Active';
        op.pending = this.clock.setTimeout(() => {
          op.pending = null;
          if (this.downReason(device, n) !== null) return;
          op.state = 'Established';
          op.since = this.clock.now().getTime();
          op.connections += 1;
          this.log(device, `%BGP-5-ADJCHANGE: ${who(n)} Up`);
          this.reconcile();
        }, this.timing.convergeDelayMs);
        continue;
      }
      op.pending?.cancel();
      op.pending = null;
      const target = reason === 'admin' || reason === 'max-prefix' ? 'Idle' : 'Active';
      if (op.state === 'Established') {
        op.msgBase += messagesDuring(now - op.since);
        op.dropped += 1;
        op.lastReset = { at: now, reason };
        op.since = now;
        for (const line of downLogs(n, reason)) this.log(device, line);
      } else if (op.state !== target) {
        op.since = now;
      }
      op.state = target;
    }
  }
}

/** Keepalives every 60 s plus the opening exchange. */
export function messagesDuring(ms: number): number {
  return 4 + Math.floor(ms / 60_000);
}

export function who(n: { address: string; vrf?: string }): string {
  return n.vrf ? `neighbor ${n.address} vpn vrf ${n.vrf}` : `neighbor ${n.address}`;
}

const REASON_TEXT: Record<DownReason, string> = {
  admin: 'Admin. shutdown',
  'peer-closed': 'Peer closed the session',
  'hold-timer': 'BGP Notification sent',
  'interface-flap': 'Interface flap',
  'max-prefix': 'BGP Notification sent', 'bad-peer-as': 'BGP Notification sent',
  'update-source': 'Update source changed',
};

export function lastResetText(reason: DownReason): string {
  if (reason === 'max-prefix' || reason === 'bad-peer-as') return `BGP Notification sent, ${reason === 'max-prefix' ? 'maximum number of prefixes reached' : 'peer in wrong AS'}`;
  return reason === 'hold-timer' ? 'BGP Notification sent, hold time expired' : `${REASON_TEXT[reason]} of session 1`;
}

function downLogs(n: ConfigNeighbor, reason: DownReason): string[] {
  const af = n.vrf ? `IPv4 Unicast vpn vrf ${n.vrf}` : 'IPv4 Unicast';
  const text = REASON_TEXT[reason];
  const lines: string[] = [];
  if (reason === 'peer-closed') lines.push(`%BGP-3-NOTIFICATION: received from ${who(n)} 6/2 (Administrative Shutdown) 0 bytes`);
  lines.push(...maxPrefixLogs(n, reason));
  if (reason === 'hold-timer') lines.push(`%BGP-3-NOTIFICATION: sent to ${who(n)} 4/0 (hold time expired) 0 bytes`);
  lines.push(`%BGP-5-ADJCHANGE: ${who(n)} Down ${text}`);
  lines.push(`%BGP_SESSION-5-ADJCHANGE: neighbor ${n.address} ${af} topology base removed from session  ${text}`);
  return lines;
}
