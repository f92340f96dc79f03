import type { GrammarNode } from './cli-parser';
import type { ConfigInterface, Device, DeviceConfig, Network } from './device';
import { inSubnet, prefixLengthToMask, shortInterfaceName } from './ios-format';

/**
 * OSPF in the simulated lab, enough for the OSPF runbooks (AD000005): process 1 runs area 0.0.0.0 on
 * every global-table point-to-point link (the /30s between the routers; loopbacks and VRF interfaces
 * stay out), as the FRR lab does (harness/frr-lab/ospf.ts). The only OSPF configuration a change can make is
 * `passive-interface` (kept on the interface's config, so drafts and rollbacks carry it). Adjacencies
 * are not timed: a link is Full whenever both ends are up, in OSPF and sending hellos, so a show after a
 * repair reads the settled state, as the RAW's wait and retries expect of a real router.
 */
export const OSPF_PROCESS = 1;
export const OSPF_AREA = '0.0.0.0';

const isP2pLink = (i: ConfigInterface) => !!i.ipv4 && !i.vrf && i.ipv4.endsWith('/30') && !i.name.startsWith('Loopback');

export const ospfInterfaces = (config: DeviceConfig) => config.interfaces.filter(isP2pLink);

export const ospfRouterId = (d: Device) => d.config.bgp?.router_id ?? d.config.interfaces.find((i) => i.name === 'Loopback0')?.ipv4?.split('/')[0] ?? '0.0.0.0';

/** The other end of a link: the interface of another router in the same /30. */
function peerOf(net: Network, device: Device, i: ConfigInterface): { device: Device; iface: ConfigInterface } | undefined {
  for (const other of net.devices.values()) {
    if (other === device) continue;
    const iface = ospfInterfaces(other.config).find((o) => inSubnet(o.ipv4!.split('/')[0]!, i.ipv4!));
    if (iface) return { device: other, iface };
  }
  return undefined;
}

const linkUp = (d: Device, i: ConfigInterface) => d.interfaces.get(i.name)?.status === 'up';
const sendsHellos = (d: Device, i: ConfigInterface) => linkUp(d, i) && !i.ospf_passive;

/** The neighbor an interface exchanges hellos with (both ends up, in OSPF, not passive), if any. */
function helloNeighbor(net: Network, device: Device, i: ConfigInterface) {
  const peer = peerOf(net, device, i);
  return peer && sendsHellos(device, i) && sendsHellos(peer.device, peer.iface) ? peer : undefined;
}

export const interfaceMtu = (i: ConfigInterface) => i.mtu ?? 1500;

/**
 * Whether `i` refuses its neighbor's database description (AD000008): the neighbor's MTU is larger and
 * `ip ospf mtu-ignore` is not set. Either end refusing keeps the adjacency in EXSTART.
 */
const refusesDbd = (i: ConfigInterface, other: ConfigInterface) => interfaceMtu(other) > interfaceMtu(i) && !i.ospf_mtu_ignore;

/**
 * Whether `i` cannot even receive its neighbor's DBDs: the neighbor's database is large enough to fill its
 * (larger) MTU, and a packet larger than `i`'s MTU is dropped on arrival; mtu-ignore does not help.
 */
const tooLargeFor = (i: ConfigInterface, other: Device, otherIface: ConfigInterface) => other.faults.largeDatabase && interfaceMtu(otherIface) > interfaceMtu(i);

/** The Full neighbor on an interface, if any: hellos pass and each end takes the other's DBDs. */
function fullNeighbor(net: Network, device: Device, i: ConfigInterface) {
  const peer = helloNeighbor(net, device, i);
  if (!peer || refusesDbd(i, peer.iface) || refusesDbd(peer.iface, i)) return undefined;
  return tooLargeFor(i, peer.device, peer.iface) || tooLargeFor(peer.iface, device, i) ? undefined : peer;
}

function showNeighbor(net: Network, device: Device): string {
  const rows = ospfInterfaces(device.config).flatMap((i) => {
    const p = helloNeighbor(net, device, i);
    if (!p) return [];
    const state = fullNeighbor(net, device, i) ? 'FULL/  -   ' : 'EXSTART/  -';
    return [`${ospfRouterId(p.device).padEnd(15)}   0   ${state}     00:00:35    ${p.iface.ipv4!.split('/')[0]!.padEnd(15)} ${i.name}`];
  });
  return ['', 'Neighbor ID     Pri   State           Dead Time   Address         Interface', ...rows].join('\n');
}

function showInterfaceBrief(net: Network, device: Device): string {
  const rows = ospfInterfaces(device.config).map((i) => {
    const full = fullNeighbor(net, device, i) ? 1 : 0;
    const state = !linkUp(device, i) ? 'DOWN' : 'P2P';
    return `${shortInterfaceName(i.name).padEnd(12)} ${String(OSPF_PROCESS).padEnd(5)} ${OSPF_AREA.padEnd(15)} ${i.ipv4!.padEnd(18)} 1     ${state.padEnd(5)} ${full}/${full}`;
  });
  return ['Interface    PID   Area            IP Address/Mask    Cost  State Nbrs F/C', ...rows].join('\n');
}

function showInterface(net: Network, device: Device, name: string): string {
  const i = ospfInterfaces(device.config).find((x) => x.name === name);
  if (!i) return `%OSPF: OSPF not enabled on ${name}`;
  const status = device.interfaces.get(i.name)?.status;
  const head = status === 'admin-down' ? 'is administratively down, line protocol is down' : status === 'up' ? 'is up, line protocol is up' : 'is down, line protocol is down';
  const full = fullNeighbor(net, device, i) ? 1 : 0;
  const seen = helloNeighbor(net, device, i) ? 1 : 0;
  return [
    `${i.name} ${head} `,
    `  Internet Address ${i.ipv4}, Interface ID ${Number(i.name.replace(/\D/g, '')) + 6}, Area ${OSPF_AREA}`,
    '  Attached via Network Statement',
    `  Process ID ${OSPF_PROCESS}, Router ID ${ospfRouterId(device)}, Network Type POINT_TO_POINT, Cost: 1`,
    `  Transmit Delay is 1 sec, State ${status === 'up' ? 'POINT_TO_POINT' : 'DOWN'}`,
    '  Timer intervals configured, Hello 10, Dead 40, Wait 40, Retransmit 5',
    i.ospf_passive ? '    No Hellos (Passive interface) ' : '    Hello due in 00:00:04',
    `  Neighbor Count is ${seen}, Adjacent neighbor count is ${full} `,
  ].join('\n');
}

/** `show ip ospf neighbor` and `show ip ospf interface [brief | IF]`, under `show ip`. */
export function ospfExecNode(net: Network, device: Device): GrammarNode<string> {
  return {
    keyword: 'ospf',
    children: [
      { keyword: 'neighbor', run: () => showNeighbor(net, device) },
      {
        keyword: 'interface',
        children: [
          { keyword: 'brief', run: () => showInterfaceBrief(net, device) },
          { param: { name: 'if', kind: 'interface' }, run: (a) => showInterface(net, device, a.if!) },
        ],
      },
    ],
  };
}

/** `router ospf 1` as IOS prints it, before `router bgp`. */
export function ospfBlock(device: Device): string[] {
  const ifs = ospfInterfaces(device.config);
  if (ifs.length === 0) return [];
  const networks = ifs.map((i) => {
    const [addr = '', len = '30'] = i.ipv4!.split('/');
    const base = addr.split('.').map(Number);
    base[3] = base[3]! & ~3;
    const wildcard = prefixLengthToMask(Number(len)).split('.').map((o) => 255 - Number(o)).join('.');
    return ` network ${base.join('.')} ${wildcard} area ${OSPF_AREA}`;
  });
  return [`router ospf ${OSPF_PROCESS}`, ` router-id ${ospfRouterId(device)}`, ...ifs.filter((i) => i.ospf_passive).map((i) => ` passive-interface ${i.name}`), ...networks, '!'];
}

/** Configuration mode's `router ospf 1` and what its mode takes; `mode` is config-mode.ts's. */
export function ospfConfigNodes<O>(config: DeviceConfig, enter: () => O, fail: (error: string) => O, done: () => O) {
  const router: GrammarNode<O> = {
    keyword: 'ospf',
    children: [
      {
        param: { name: 'pid', kind: 'number' },
        run: (a) => (Number(a.pid) === OSPF_PROCESS && ospfInterfaces(config).length > 0 ? enter() : fail(`% OSPF process ${a.pid} is not configured; the lab does not create new OSPF processes`)),
      },
    ],
  };
  const passive = (value: boolean): GrammarNode<O> => ({
    keyword: 'passive-interface',
    children: [
      {
        param: { name: 'if', kind: 'interface' },
        run: (a) => {
          const i = config.interfaces.find((x) => x.name === a.if);
          if (!i) return fail(`% Interface ${a.if} does not exist`);
          if (value) i.ospf_passive = true;
          else delete i.ospf_passive;
          return done();
        },
      },
    ],
  });
  const inRouter: GrammarNode<O>[] = [passive(true), { keyword: 'no', children: [passive(false)] }, { keyword: 'log-adjacency-changes', run: done }];
  return { router, inRouter };
}

/** Which adjacencies are Full now, as `router|interface`: taken before a change, compared after it. */
export function ospfAdjacencies(net: Network): Set<string> {
  const up = new Set<string>();
  for (const d of net.devices.values()) for (const i of ospfInterfaces(d.config)) if (fullNeighbor(net, d, i)) up.add(`${d.config.hostname}|${i.name}`);
  return up;
}

/**
 * The ADJCHG lines IOS-XE logs for what a change did. The router whose interface stopped sending hellos
 * (passive, or down) tears the adjacency down at once ("Interface down or detached"); its neighbor only
 * notices when the dead timer runs out.
 */
export function logOspfChanges(net: Network, before: Set<string>): void {
  const now = ospfAdjacencies(net);
  for (const d of net.devices.values()) {
    for (const i of ospfInterfaces(d.config)) {
      const key = `${d.config.hostname}|${i.name}`;
      if (before.has(key) === now.has(key)) continue;
      const peer = peerOf(net, d, i);
      if (!peer) continue;
      const nbr = `%OSPF-5-ADJCHG: Process ${OSPF_PROCESS}, Nbr ${ospfRouterId(peer.device)} on ${i.name}`;
      if (now.has(key)) net.log(d, `${nbr} from LOADING to FULL, Loading Done`);
      else if (helloNeighbor(net, d, i)) {
        // Hellos still flow: the database exchange is what fails. Only the end refusing the larger DBD logs it.
        if (refusesDbd(i, peer.iface)) net.log(d, `${nbr} from EXSTART to DOWN, Neighbor Down: Too many retransmissions`);
      } else net.log(d, `${nbr} from FULL to DOWN, Neighbor Down: ${sendsHellos(d, i) ? 'Dead timer expired' : 'Interface down or detached'}`);
    }
  }
}

/** The AD000005 fault: `passive-interface IF` configured on a link; `record` notes the change as the lab's others do. */
export function injectOspfPassive(net: Network, device: Device, i: ConfigInterface, record: () => void): string {
  if (!ospfInterfaces(device.config).includes(i)) throw new Error(`${i.name} on ${device.config.hostname} does not run OSPF in the lab`);
  const before = ospfAdjacencies(net);
  i.ospf_passive = true;
  record();
  logOspfChanges(net, before);
  return `${device.config.hostname}: passive-interface ${i.name} under router ospf ${OSPF_PROCESS}; the adjacency over it is lost`;
}

/** The AD000008 fault: the interface's MTU lowered on one end of a link, so that end refuses the far end's DBD. */
export function injectOspfMtuMismatch(net: Network, device: Device, i: ConfigInterface, record: () => void): string {
  if (!ospfInterfaces(device.config).includes(i)) throw new Error(`${i.name} on ${device.config.hostname} does not run OSPF in the lab`);
  const before = ospfAdjacencies(net);
  i.mtu = 1400;
  record();
  logOspfChanges(net, before);
  return `${device.config.hostname}: mtu 1400 on ${i.name}, the far end keeps 1500; the adjacency over it sticks in EXSTART`;
}

/** The router's database grows past what fits in a 1400-byte packet (many external routes); alone, nothing changes. */
export function injectOspfLargeDatabase(net: Network, device: Device): string {
  const before = ospfAdjacencies(net);
  device.faults.largeDatabase = true;
  logOspfChanges(net, before);
  return `${device.config.hostname}: many external routes redistributed into OSPF; its database description packets fill its MTU`;
}
