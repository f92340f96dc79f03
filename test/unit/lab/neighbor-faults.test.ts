import { describe, expect, it } from 'vitest';
import { extractFromLogLine } from '../../../src/runbooks/variables';
import { parseFaultSpec } from '../../../src/runbooks/fault-spec';
import { bgpState, cliOutput, virtualLab } from '../../helpers/virtual-lab';

const v = virtualLab('AD000004');

describe('a maximum-prefix overflow in the simulated lab (AD000004)', () => {
  it('holds the session Idle (PfxCt), logs the overflow line the FS detects, and shows the limit', () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000004', device: 'R1', neighbor: '10.0.0.2' }));
    const hits = cliOutput(v.lab.exec('R1', 'show logging')).split('\n').map((l) => extractFromLogLine(v.group.fs, l)).filter(Boolean);
    // R2 advertises 12 prefixes; the lab's limit is one below, and IOS-XE trips on the first prefix over it.
    expect(hits).toEqual([{ pattern: 'iosxe_maxpfxexceed', vars: { neighbor_ip: '10.0.0.2', prefix_count: '12', prefix_limit: '11' } }]);
    expect(cliOutput(v.lab.exec('R1', 'show ip bgp summary'))).toMatch(/^10\.0\.0\.2 .* Idle \(PfxCt\)$/m);
    const detail = cliOutput(v.lab.exec('R1', 'show ip bgp neighbors 10.0.0.2'));
    expect(detail).toContain('  Maximum prefixes allowed 11');
    expect(detail).toContain('  Peer had exceeded the max. no. of prefixes configured.');
    expect(cliOutput(v.lab.exec('R1', 'show running-config | section router bgp'))).toContain('  neighbor 10.0.0.2 maximum-prefix 11');
  });

  it('comes back once the limit allows what the peer sends, and not while it does not', () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000004', device: 'R1', neighbor: '10.0.0.2' }));
    expect(v.lab.config('R1', ['router bgp 65001', 'address-family ipv4 unicast', 'neighbor 10.0.0.2 maximum-prefix 5', 'end']).ok).toBe(true);
    v.clock.advance(10_000);
    expect(bgpState(v.lab, '10.0.0.2')).toBe('Idle');
    expect(v.lab.config('R1', ['router bgp 65001', 'address-family ipv4 unicast', 'neighbor 10.0.0.2 maximum-prefix 120', 'end']).ok).toBe(true);
    v.clock.advance(10_000);
    expect(bgpState(v.lab, '10.0.0.2')).toBe('Established');
  });
});

describe('an update-source naming a missing interface in the simulated lab (AD000007)', () => {
  it('keeps the session Active until the line is removed', () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000007', device: 'R1', neighbor: '10.0.0.2' }));
    expect(bgpState(v.lab, '10.0.0.2')).toBe('Active');
    expect(cliOutput(v.lab.exec('R1', 'show running-config | section router bgp'))).toContain(' neighbor 10.0.0.2 update-source Loopback9');
    expect(cliOutput(v.lab.exec('R1', 'show ip interface brief'))).not.toMatch(/^Loopback9\s/m);
    expect(v.lab.config('R1', ['router bgp 65001', 'no neighbor 10.0.0.2 update-source Loopback9', 'end']).ok).toBe(true);
    v.clock.advance(10_000);
    expect(bgpState(v.lab, '10.0.0.2')).toBe('Established');
  });
});
