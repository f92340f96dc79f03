import type { FaultSpec } from '../../src/runbooks/fault-spec';
import type { FrrLabRouter, FrrLabRouters } from './lab';

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
  const deadline = Date.now() + 30_000;
  while ((await externalCount(lab, router.name)) < EXTERNALS) {
    if (Date.now() > deadline) return `${router.name} redistributes static routes, but its OSPF database did not grow to ${EXTERNALS} external routes within 30 s`;
    await new Promise((r) => setTimeout(r, 200));
  }
  return undefined;
}

/** No router redistributes the fault's routes; only the routers that do are reconfigured. */
export async function resetLargeDatabase(lab: FrrLabRouters): Promise<void> {
  for (const r of lab.routers) {
    if (!/^ redistribute static/m.test(await lab.vtysh(r.name, 'show running-config ospfd'))) continue;
    await lab.vtysh(r.name, 'configure terminal', 'router ospf', 'no redistribute static', 'exit', ...prefixes().map((p) => `no ip route ${p} Null0`), 'end');
  }
}
