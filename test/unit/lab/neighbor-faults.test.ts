import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createVirtualClock, type VirtualClock } from '../../../src/artifacts/clock';
import { loadArtifactGroup, type ArtifactGroup } from '../../../src/artifacts/load';
import { extractFromLogLine } from '../../../src/artifacts/variables';
import { parseFaultSpec } from '../../../src/lab/faults';
import { loadInventory, type Inventory } from '../../../src/lab/inventory';
import { createLab, type CliResult, type Lab } from '../../../src/lab/lab';

let inventory: Inventory;
let ad4: ArtifactGroup;
beforeAll(async () => {
  inventory = await loadInventory();
  ad4 = await loadArtifactGroup('intelligence-artifacts', 'AD000004');
});

const out = (r: CliResult) => {
  if (!r.ok) throw new Error(`expected output, got error: ${r.error}`);
  return r.output;
};
const state = (lab: Lab, neighbor: string) => /^\s+BGP state = (\w+)/m.exec(out(lab.exec('R1', `show ip bgp neighbors ${neighbor}`)))?.[1];

let clock: VirtualClock;
let lab: Lab;
beforeEach(() => {
  clock = createVirtualClock();
  lab = createLab({ inventory, clock, convergeDelayMs: 4000, linkDelayMs: 2000 });
});

describe('a maximum-prefix overflow in the simulated lab (AD000004)', () => {
  it('holds the session Idle (PfxCt), logs the overflow line the FS detects, and shows the limit', () => {
    lab.inject(parseFaultSpec({ fault: 'AD000004', device: 'R1', neighbor: '10.0.0.2' }));
    const hits = out(lab.exec('R1', 'show logging')).split('\n').map((l) => extractFromLogLine(ad4.fs, l)).filter(Boolean);
    // R2 advertises 12 prefixes; the lab's limit is one below, and IOS-XE trips on the first prefix over it.
    expect(hits).toEqual([{ pattern: 'iosxe_maxpfxexceed', vars: { neighbor_ip: '10.0.0.2', prefix_count: '12', prefix_limit: '11' } }]);
    expect(out(lab.exec('R1', 'show ip bgp summary'))).toMatch(/^10\.0\.0\.2 .* Idle \(PfxCt\)$/m);
    const detail = out(lab.exec('R1', 'show ip bgp neighbors 10.0.0.2'));
    expect(detail).toContain('  Maximum prefixes allowed 11');
    expect(detail).toContain('  Peer had exceeded the max. no. of prefixes configured.');
    expect(out(lab.exec('R1', 'show running-config | section router bgp'))).toContain('  neighbor 10.0.0.2 maximum-prefix 11');
  });

  it('comes back once the limit allows what the peer sends, and not while it does not', () => {
    lab.inject(parseFaultSpec({ fault: 'AD000004', device: 'R1', neighbor: '10.0.0.2' }));
    expect(lab.config('R1', ['router bgp 65001', 'address-family ipv4 unicast', 'neighbor 10.0.0.2 maximum-prefix 5', 'end']).ok).toBe(true);
    clock.advance(10_000);
    expect(state(lab, '10.0.0.2')).toBe('Idle');
    expect(lab.config('R1', ['router bgp 65001', 'address-family ipv4 unicast', 'neighbor 10.0.0.2 maximum-prefix 120', 'end']).ok).toBe(true);
    clock.advance(10_000);
    expect(state(lab, '10.0.0.2')).toBe('Established');
  });
});

describe('an update-source naming a missing interface in the simulated lab (AD000007)', () => {
  it('keeps the session Active until the line is removed', () => {
    lab.inject(parseFaultSpec({ fault: 'AD000007', device: 'R1', neighbor: '10.0.0.2' }));
    expect(state(lab, '10.0.0.2')).toBe('Active');
    expect(out(lab.exec('R1', 'show running-config | section router bgp'))).toContain(' neighbor 10.0.0.2 update-source Loopback9');
    expect(out(lab.exec('R1', 'show ip interface brief'))).not.toMatch(/^Loopback9\s/m);
    expect(lab.config('R1', ['router bgp 65001', 'no neighbor 10.0.0.2 update-source Loopback9', 'end']).ok).toBe(true);
    clock.advance(10_000);
    expect(state(lab, '10.0.0.2')).toBe('Established');
  });
});
