import type { FaultSpec } from '../../src/runbooks/fault-spec';
import type { FrrLabRouter, FrrLabRouters } from './lab';
import { logFileOf, type LabRouter } from './topology';
import { errorText } from '../../src/core/error-body';
import type { OspfInterfaceJson, RouterView } from './router-view';
import { settle } from './settle';

/**
 * OSPF on the FRR lab's links, for the OSPF alert definitions (AD000005). It sits beside eBGP without
 * touching it: only the point-to-point link subnets are in area 0, which every router already has as
 * connected routes (distance 0 beats OSPF's 110), so BGP's routes and next hops are what they were.
 * `log-adjacency-changes` is what writes the "AdjChg" line the watcher turns into an alert.
 */
export const OSPF_AREA = '0.0.0.0';

/** The /30 each link sits in, as OSPF's network statement wants it (10.0.i.1 → 10.0.i.0/30). */
export const linkSubnet = (address: string) => `${address.split('.').slice(0, 3).join('.')}.${Number(address.split('.')[3]) & ~3}/30`;

/** ospfd's file, logging to the router's one log like its other daemons (topology.ts). */
export function ospfdConf(r: LabRouter): string {
  return [
    `hostname ${r.name}`,
    `log file ${logFileOf(r)} informational`,
    'log timestamp precision 6',
    // Point-to-point skips the DR election; hello 1 s / dead 3 s converge as fast as the BGP timers do.
    ...r.links.flatMap((l) => [`interface ${l.ifname}`, ' ip ospf network point-to-point', ' ip ospf hello-interval 1', ' ip ospf dead-interval 3']),
    'router ospf',
    ` ospf router-id ${r.routerId}`,
    ' log-adjacency-changes',
    ...r.links.map((l) => ` network ${linkSubnet(l.address)} area ${OSPF_AREA}`),
    '',
  ].join('\n');
}

type Vtysh = FrrLabRouters['vtysh'];

interface OspfIfState {
  neighbors: number;
  adjacent: number;
  passive: boolean;
}

const ifState = (i: OspfInterfaceJson | undefined): OspfIfState => ({ neighbors: i?.nbrCount ?? 0, adjacent: i?.nbrAdjacentCount ?? 0, passive: i?.timerPassiveIface === true });

/** One interface as its router reports it (`show ip ospf interface IF json`). */
export async function ospfInterfaceState(vtysh: Vtysh, router: string, ifname: string): Promise<OspfIfState> {
  const out = await vtysh(router, `show ip ospf interface ${ifname} json`);
  return ifState((JSON.parse(out) as { interfaces?: Record<string, OspfInterfaceJson> }).interfaces?.[ifname]);
}

/**
 * Waits until `done` holds for every (router, interface) given, asking each router once per look for all
 * its interfaces. ospfd logs each adjacency change (AdjChg), which wakes the wait (settle.ts); the error
 * names what is still not so.
 */
async function waitForOspf(lab: FrrLabRouters, links: Array<[router: string, ifname: string]>, done: (c: OspfIfState) => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const routers = [...new Set(links.map(([router]) => router))];
  const pending = await settle(
    async () => {
      const left: string[] = [];
      for (const router of routers) {
        const out = await lab.vtysh(router, 'show ip ospf interface json');
        const ifs = (JSON.parse(out) as { interfaces?: Record<string, OspfInterfaceJson> }).interfaces ?? {};
        for (const [r, ifname] of links) if (r === router && !done(ifState(ifs[ifname]))) left.push(`${router} ${ifname}`);
      }
      return left.length > 0 ? left.join(', ') : undefined;
    },
    timeoutMs,
    lab.routers.filter((r) => routers.includes(r.name)).map((r) => r.logFile),
  );
  if (pending !== undefined) throw new Error(`OSPF: ${pending} not ${what} within ${timeoutMs / 1000} s`);
}

const allLinks = (lab: FrrLabRouters) => lab.routers.flatMap((r) => r.links.map((l) => [r.name, l.ifname] as [string, string]));

/**
 * No interface passive (configuration lines for resetFrrLab); none when none is. Only where passive:
 * FRR 8.4 accepts `no ip ospf passive` on an active interface, but then silently ignores the next
 * `ip ospf passive` there (verified in the lab), which would spoil the next fault.
 */
export function passiveUndo(r: FrrLabRouter, view: RouterView): string[] {
  return r.links.filter((l) => ifState(view.ospf[l.ifname]).passive).flatMap((l) => [`interface ${l.ifname}`, 'no ip ospf passive', 'exit']);
}

/** Every adjacency Full: what each test case starts from (faults.ts's resetFrrLab). */
export async function waitForOspfFull(lab: FrrLabRouters): Promise<void> {
  await waitForOspf(lab, allLinks(lab), (c) => c.adjacent > 0, 'Full');
}

/**
 * The AD000005 fault on real FRR: `ip ospf passive` on a link interface (FRR 8.4's form of IOS's
 * `passive-interface`). Returns once both ends report the adjacency gone, that is after the dead
 * interval, when each has logged its AdjChg line, as an alert would find the routers.
 */
export async function applyOspfFault(lab: FrrLabRouters, router: FrrLabRouter, fault: Extract<FaultSpec, { fault: 'ospf_interface_passive' }>): Promise<string | undefined> {
  const link = router.links.find((l) => l.ifname === fault.interface);
  if (!link) return `the FRR lab has no OSPF interface ${fault.interface} on ${router.name} (its links: ${router.links.map((l) => l.ifname).join(', ')})`;
  const peerIf = lab.routers.find((r) => r.name === link.peer)?.links.find((l) => l.peer === router.name)?.ifname;
  // Checked, and given once more if it did not take: the FRR 8.4 quirk of passiveUndo's comment, when
  // an operator (or a repair) has run `no ip ospf passive` on an active interface before.
  for (let attempt = 0; attempt < 2 && !(await ospfInterfaceState(lab.vtysh, router.name, link.ifname)).passive; attempt++) {
    await lab.vtysh(router.name, 'configure terminal', `interface ${link.ifname}`, 'ip ospf passive', 'end');
  }
  const ends: Array<[string, string]> = [[router.name, link.ifname], ...(peerIf ? [[link.peer, peerIf] as [string, string]] : [])];
  try {
    await waitForOspf(lab, ends, (c) => c.neighbors === 0, 'without a neighbor');
  } catch (error) {
    return `${router.name} ${link.ifname} made passive, but the fault did not settle: ${errorText(error)}`;
  }
  return undefined;
}
