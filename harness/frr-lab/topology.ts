/**
 * The FRR lab's shape, as plain data: which routers, which links, which addresses and AS numbers,
 * and the daemon configuration files. Pure, so the plan can be tested without root.
 *
 * Router k: AS 65000+k, router-id 192.168.255.k, a static 172.16.k.0/24 → Null0 to advertise.
 * Link i joins R(i+1) and R(i+2) in a chain: 10.0.i.1/30 ↔ 10.0.i.2/30, so R1 10.0.0.1 peers with
 * R2 10.0.0.2, the neighbour the AD000002 samples use. These private addresses exist only inside the
 * namespaces the lab creates; nothing is routed out of them.
 */
export interface LabLink {
  /** Interface name inside this router's namespace, named after the peer. */
  ifname: string;
  address: string;
  peer: string;
  peerAddress: string;
  peerAs: number;
}

/**
 * VRF CUST-A between R1 and R2, as in the simulated lab (R1 10.1.1.1 ↔ 10.1.1.2). The kernel here has no
 * VRF device, so the VRF is a network namespace that zebra (`-n`) takes as a VRF.
 */
export interface LabVrf {
  name: string;
  /** The namespace that is this router's CUST-A. */
  namespace: string;
  ifname: string;
  address: string;
  peer: string;
  peerAddress: string;
  peerAs: number;
}

export const VRF_NAME = 'CUST-A';

export interface LabRouter {
  name: string;
  vrf?: LabVrf;
  /** Network namespace and FRR pathspace (`vtysh -N`), unique per lab instance. */
  namespace: string;
  as: number;
  routerId: string;
  links: LabLink[];
}

export const MAX_ROUTERS = 20;

export function planRouters(labId: string, count: number): LabRouter[] {
  if (!Number.isInteger(count) || count < 2 || count > MAX_ROUTERS) {
    throw new Error(`--routers must be a whole number from 2 to ${MAX_ROUTERS}`);
  }
  const routers: LabRouter[] = Array.from({ length: count }, (_, i) => ({
    name: `R${i + 1}`,
    namespace: `${labId}-R${i + 1}`,
    as: 65001 + i,
    routerId: `192.168.255.${i + 1}`,
    links: [],
  }));
  for (let i = 0; i < count - 1; i++) {
    const a = routers[i]!;
    const b = routers[i + 1]!;
    a.links.push({ ifname: `eth-${b.name}`, address: `10.0.${i}.1`, peer: b.name, peerAddress: `10.0.${i}.2`, peerAs: b.as });
    b.links.push({ ifname: `eth-${a.name}`, address: `10.0.${i}.2`, peer: a.name, peerAddress: `10.0.${i}.1`, peerAs: a.as });
  }
  const [r1, r2] = routers as [LabRouter, LabRouter];
  r1.vrf = { name: VRF_NAME, namespace: `${r1.namespace}-${VRF_NAME}`, ifname: `ca-${r2.name}`, address: '10.1.1.1', peer: r2.name, peerAddress: '10.1.1.2', peerAs: r2.as };
  r2.vrf = { name: VRF_NAME, namespace: `${r2.namespace}-${VRF_NAME}`, ifname: `ca-${r1.name}`, address: '10.1.1.2', peer: r1.name, peerAddress: '10.1.1.1', peerAs: r1.as };
  return routers;
}

export const logFileOf = (r: LabRouter) => `/var/log/frr/${r.namespace}/frr.log`;

const logLines = (r: LabRouter) => [`log file ${logFileOf(r)} informational`, 'log timestamp precision 6'];

/**
 * FRR 8.4 logs nothing for an interface `shutdown` at the informational level: `debug zebra kernel`
 * (at debugging, in zebra's log only) writes the kernel's link update with its flags, the line the
 * watcher turns into AD000003 (detectors-interface.ts). The other daemons stay at informational.
 */
export function zebraConf(r: LabRouter): string {
  return [`hostname ${r.name}`, ...logLines(r).map((l) => l.replace(/ informational$/, ' debugging')), 'debug zebra kernel', ''].join('\n');
}

export function staticdConf(r: LabRouter): string {
  const k = r.as - 65000;
  return [`hostname ${r.name}`, ...logLines(r), `ip route 172.16.${k}.0/24 Null0`, ''].join('\n');
}

/**
 * eBGP to every neighbour with fast timers (keepalive 1 s, hold 3 s, connect retry 1 s) so the lab
 * converges in about two seconds. `bgp log-neighbor-changes` is what writes the %ADJCHANGE line the
 * watcher turns into an alert; FRR 8.4's default profile leaves it off.
 */
export function bgpdConf(r: LabRouter): string {
  return [
    `hostname ${r.name}`,
    ...logLines(r),
    `router bgp ${r.as}`,
    ` bgp router-id ${r.routerId}`,
    ' no bgp ebgp-requires-policy',
    ' bgp log-neighbor-changes',
    ' timers bgp 1 3',
    ...r.links.flatMap((l) => [` neighbor ${l.peerAddress} remote-as ${l.peerAs}`, ` neighbor ${l.peerAddress} timers connect 1`]),
    ' address-family ipv4 unicast',
    `  network ${r.routerId}/32`,
    '  redistribute static',
    ' exit-address-family',
    ...(r.vrf
      ? [
          `router bgp ${r.as} vrf ${r.vrf.name}`,
          ` bgp router-id ${r.routerId}`,
          ' no bgp ebgp-requires-policy',
          ' bgp log-neighbor-changes',
          ' timers bgp 1 3',
          ` neighbor ${r.vrf.peerAddress} remote-as ${r.vrf.peerAs}`,
          ` neighbor ${r.vrf.peerAddress} timers connect 1`,
          ' address-family ipv4 unicast',
          '  redistribute connected',
          ' exit-address-family',
        ]
      : []),
    '',
  ].join('\n');
}

/** `hostname` here is what makes vtysh's prompt and `show version` say R1 rather than the box's name. */
export function vtyshConf(r: LabRouter): string {
  return ['service integrated-vtysh-config', `hostname ${r.name}`, ''].join('\n');
}

export interface SshdPlan {
  port: number;
  hostKey: string;
  authorizedKeys: string;
  user: string;
  /** The login command: vtysh on this router's sockets, with a vtysh.conf the login user can read. */
  forceCommand: string;
}

/** One sshd per router on loopback; every login lands in that router's vtysh and nowhere else. */
export function sshdConfig(p: SshdPlan): string {
  return [
    `Port ${p.port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${p.hostKey}`,
    'PidFile none',
    'UsePAM no',
    'PasswordAuthentication yes',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    `AuthorizedKeysFile ${p.authorizedKeys}`,
    // The key file lives in the lab's folder, owned by root rather than the login user.
    'StrictModes no',
    'PermitRootLogin no',
    `AllowUsers ${p.user}`,
    `ForceCommand ${p.forceCommand}`,
    'X11Forwarding no',
    'AllowTcpForwarding no',
    'AllowAgentForwarding no',
    'PermitTunnel no',
    'PrintMotd no',
    'PrintLastLog no',
    'MaxStartups 20:30:60',
    '',
  ].join('\n');
}
