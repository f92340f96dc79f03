import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../../harness/raw-tests/clock';
import { runCaptures } from '../../../src/runbooks/expectations';
import { loadArtifactGroup } from '../../../src/runbooks/load';
import { loadInventory } from '../../../harness/ios-lab/inventory';
import { createLab } from '../../../harness/ios-lab/lab';
import { planPostCheck, type PostCheckPlan } from '../../../src/core/changes/post-check';

const artifacts = join(__dirname, '../../../intelligence-artifacts');

/**
 * On the simulated IOS-XE lab: a peer that comes back Established but sends no routes fails
 * AD000002's post-check, and a description the approved change writes to look like the prefix count
 * does not change that.
 */
describe("AD000002's post-check on the simulated lab with a description that looks like the field", () => {
  it('fails on 0 prefixes although the approved change wrote "Prefixes Current: 0 5" as the description', async () => {
    const inventory = structuredClone(await loadInventory());
    const r2 = inventory.devices.find((d) => d.hostname === 'R1')!.bgp!.neighbors.find((n) => n.address === '10.0.0.2')!;
    r2.prefixes_received = 0;
    const clock = createVirtualClock();
    const lab = createLab({ inventory, clock });
    try {
      lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
      const applied = lab.config('R1', ['router bgp 65001', 'neighbor 10.0.0.2 description Prefixes Current: 0 5', 'no neighbor 10.0.0.2 shutdown', 'end']);
      expect(applied.ok).toBe(true);
      clock.advance(60_000); // past the session's time to converge
      const shown = lab.exec('R1', 'show ip bgp neighbors 10.0.0.2');
      if (!shown.ok) throw new Error(shown.error);
      expect(shown.output).toMatch(/^ Description: Prefixes Current: 0 5$/m);
      expect(shown.output).toMatch(/BGP state = Established/);

      const { raw } = await loadArtifactGroup(artifacts, 'AD000002');
      const plan = planPostCheck(raw, { device_hostname: 'R1', neighbor_ip: '10.0.0.2' }) as PostCheckPlan;
      expect(plan.check(shown.output)).toEqual({ ok: false, failed: ['prefixes_received > 0'] });
      // The capture as it was: the description came first and would have passed the check.
      expect(runCaptures(['Prefixes Current:\\s+\\d+\\s+(?<prefixes_received>\\d+)'], shown.output, {})).toEqual({ prefixes_received: '5' });
    } finally {
      lab.close();
    }
  });
});
