import type { FaultSpec } from '../../src/runbooks/fault-spec';
import type { FrrLabRouter, FrrLabRouters } from './lab';
import { configBlock, type RouterView } from './router-view';
import { settle } from './settle';

/**
 * ospf_large_database on the FRR lab (faults.ts dispatches here): the router redistributes many static
 * routes (to Null0, in 198.18.0.0/15, the benchmarking range nothing else in the lab uses) into OSPF,
 * so its database holds well over the 69 LSA headers that make a database description packet larger
 * than a 1400-byte end can take. ospfd fills each DD up to its own interface's MTU, and the kernel of a
 * smaller end drops what does not fit: with `ip ospf mtu-ignore` on both ends the exchange starts but
 * never finishes (AD000008's failed case). Alone, beside equal MTUs, it changes nothing.
 */
export type LargeDatabaseFault = Extract<FaultSpec, { fault: 'ospf_large_database' }>;

const EXTERNALS = 120;
const prefixes = () => Array.from({ length: EXTERNALS }, (_, k) => `198.18.${k}.0/24`);

async function externalCount(lab: FrrLabRouters, router: string): Promise<number> {
  const out = await lab.vtysh(router, 'show ip ospf json');
  return (JSON.parse(out) as { lsaExternalCounter?: number }).lsaExternalCounter ?? 0;
}

/** Builds the fault; returns once the router's own database holds every external route. */
export async function applyLargeDatabase(lab: FrrLabRouters, router: FrrLabRouter): Promise<string | undefined> {
  await lab.vtysh(router.name, 'configure terminal', ...prefixes().map((p) => `ip route ${p} Null0`), 'router ospf', 'redistribute static', 'end');
  const count = await settle(async () => {
    const now = await externalCount(lab, router.name);
    return now < EXTERNALS ? String(now) : undefined;
  }, 30_000);
  if (count !== undefined) return `${router.name} redistributes static routes, but its OSPF database did not grow to ${EXTERNALS} external routes within 30 s`;
  return undefined;
}

/** No redistribution of the fault's routes (configuration lines for resetFrrLab); none when the router has none. */
export function largeDatabaseUndo(view: RouterView): string[] {
  if (!configBlock(view.config, 'router ospf').some((line) => line.trim() === 'redistribute static')) return [];
  return ['router ospf', 'no redistribute static', 'exit', ...prefixes().map((p) => `no ip route ${p} Null0`)];
}
