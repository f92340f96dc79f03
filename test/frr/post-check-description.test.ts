import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCaptures } from '../../src/runbooks/expectations';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory } from '../../src/adapters/devices/inventory';
import { planPostCheck, type PostCheckPlan } from '../../src/core/changes/post-check';
import { repoRoot } from '../helpers/opencode';
import { NO_FRR } from './frr-available';
import { frrLabForTest } from './lab-for-test';

/**
 * Text the change itself controls cannot pass the relay's post-check on a real router: R1's session to
 * R2 is Established but every prefix is filtered (the post-check must fail), and the neighbor's
 * description reads "5 accepted prefixes". The output is read through the SSH device server, as the
 * relay's post-check reads it.
 */
describe.skipIf(NO_FRR)("AD000002's post-check on real FRR with a description that looks like the field", () => {
  it('fails on 0 accepted prefixes although the description line says 5; the unanchored capture would have read 5', { timeout: 240_000 }, async () => {
    const lab = await frrLabForTest();
    const service = new DeviceService(await loadInventory(lab.inventoryPath));
    onTestFinished(() => service.close());
    await lab.vtysh(
      'R1',
      'configure terminal',
      'ip prefix-list NOTHING seq 5 deny any',
      'router bgp 65001',
      'neighbor 10.0.0.2 description 5 accepted prefixes',
      'address-family ipv4 unicast',
      'neighbor 10.0.0.2 prefix-list NOTHING in',
      'end',
      'clear bgp ipv4 unicast 10.0.0.2 soft in',
    );
    // The filter takes effect on the router's own time; the test's timeout bounds the wait.
    let output = '';
    while (!/^\s+0 accepted prefixes/m.test(output) || !/BGP state = Established/.test(output)) {
      output = await service.exec('R1', 'show ip bgp neighbors 10.0.0.2');
      if (!/^\s+0 accepted prefixes/m.test(output)) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(output).toMatch(/^\s*Description: 5 accepted prefixes$/m);

    const { raw } = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000002');
    const plan = planPostCheck(raw, { device_hostname: 'R1', neighbor_ip: '10.0.0.2', device_platform: 'frr' }) as PostCheckPlan;
    expect(plan.command).toBe('show ip bgp neighbors 10.0.0.2');
    expect(plan.check(output)).toEqual({ ok: false, failed: ['prefixes_received > 0'] });
    // What the capture used to be: it read the description and would have passed the check.
    expect(runCaptures(['(?<prefixes_received>\\d+) accepted prefixes'], output, {})).toEqual({ prefixes_received: '5' });
  });
});
