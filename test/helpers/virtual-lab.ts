import { beforeAll, beforeEach } from 'vitest';
import { createVirtualClock, type VirtualClock } from '../../harness/raw-tests/clock';
import { loadArtifactGroup, type ArtifactGroup } from '../../src/runbooks/load';
import { loadInventory, type Inventory } from '../../harness/ios-lab/inventory';
import { createLab, type CliResult, type Lab } from '../../harness/ios-lab/lab';

/** A command's output; a test that expected one fails on the lab's error. */
export const cliOutput = (r: CliResult) => {
  if (!r.ok) throw new Error(`expected output, got error: ${r.error}`);
  return r.output;
};

/** The BGP state a router shows for a neighbor. */
export const bgpState = (lab: Lab, neighbor: string, device = 'R1') => /^\s+BGP state = (\w+)/m.exec(cliOutput(lab.exec(device, `show ip bgp neighbors ${neighbor}`)))?.[1];

/**
 * A simulated lab of its own for each test, on a virtual clock (convergence 4 s, links 2 s), and an
 * artifact group's files, for the lab's fault tests: `const v = virtualLab('AD000006')`, then v.lab,
 * v.clock and v.group inside the tests.
 */
export function virtualLab(alertDefId: string): { readonly lab: Lab; readonly clock: VirtualClock; readonly group: ArtifactGroup } {
  let inventory: Inventory;
  let group: ArtifactGroup;
  let clock: VirtualClock;
  let lab: Lab;
  beforeAll(async () => {
    inventory = await loadInventory();
    group = await loadArtifactGroup('intelligence-artifacts', alertDefId);
  });
  beforeEach(() => {
    clock = createVirtualClock();
    lab = createLab({ inventory, clock, convergeDelayMs: 4000, linkDelayMs: 2000 });
  });
  return {
    get lab() {
      return lab;
    },
    get clock() {
      return clock;
    },
    get group() {
      return group;
    },
  };
}
