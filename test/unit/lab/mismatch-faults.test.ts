import { describe, expect, it } from 'vitest';
import { extractFromLogLine } from '../../../src/runbooks/variables';
import { parseFaultSpec } from '../../../src/runbooks/fault-spec';
import type { Lab } from '../../../harness/ios-lab/lab';
import { bgpState, cliOutput, virtualLab } from '../../helpers/virtual-lab';

const logs = (lab: Lab, host: string, mark: string) => cliOutput(lab.exec(host, 'show logging')).split('\n').filter((l) => l.includes(mark));

describe('simulated lab: an OSPF MTU mismatch on one end of a link (AD000008)', () => {
  const v = virtualLab('AD000008');

  it('sticks the adjacency in EXSTART on both ends, and only the smaller end logs the line the FS detects', () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000008', device: 'R1', interface: 'GigabitEthernet1' }));
    const r1 = logs(v.lab, 'R1', '%OSPF-5-ADJCHG');
    expect(r1.map((l) => extractFromLogLine(v.group.fs, l)?.vars)).toEqual([{ neighbor_id: '10.255.0.2', interface: 'GigabitEthernet1' }]);
    expect(logs(v.lab, 'R2', '%OSPF-5-ADJCHG')).toEqual([]);
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf neighbor'))).toMatch(/^10\.255\.0\.2\s+0\s+EXSTART\/ {2}-\s+\S+\s+10\.0\.0\.2\s+GigabitEthernet1$/m);
    expect(cliOutput(v.lab.exec('R2', 'show ip ospf neighbor'))).toMatch(/^10\.255\.0\.1\s+0\s+EXSTART\/ {2}-\s.*GigabitEthernet1$/m);
    expect(cliOutput(v.lab.exec('R1', 'show interfaces GigabitEthernet1'))).toContain('  MTU 1400 bytes,');
    expect(cliOutput(v.lab.exec('R2', 'show interfaces GigabitEthernet1'))).toContain('  MTU 1500 bytes,');
    expect(cliOutput(v.lab.exec('R1', 'show running-config interface GigabitEthernet1'))).toContain('\n mtu 1400\n');
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf interface GigabitEthernet1'))).toContain('Neighbor Count is 1, Adjacent neighbor count is 0');
  });

  it('comes back Full only when both ends ignore the MTU (or agree on it), and a rollback sticks it again', () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000008', device: 'R1', interface: 'GigabitEthernet1' }));
    // The larger end ignoring it changes nothing: the smaller end still refuses.
    expect(v.lab.config('R2', ['interface GigabitEthernet1', 'ip ospf mtu-ignore', 'end']).ok).toBe(true);
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf neighbor'))).toMatch(/EXSTART.*GigabitEthernet1$/m);
    expect(v.lab.config('R1', ['interface GigabitEthernet1', 'ip ospf mtu-ignore', 'end']).ok).toBe(true);
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf neighbor'))).toMatch(/^10\.255\.0\.2\s+0\s+FULL\/ {2}-\s.*GigabitEthernet1$/m);
    expect(logs(v.lab, 'R2', '%OSPF-5-ADJCHG').at(-1)).toContain('from LOADING to FULL, Loading Done');
    expect(cliOutput(v.lab.exec('R1', 'show running-config interface GigabitEthernet1'))).toContain('\n ip ospf mtu-ignore\n');
    expect(v.lab.config('R1', ['interface GigabitEthernet1', 'no ip ospf mtu-ignore', 'end']).ok).toBe(true);
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf neighbor'))).toMatch(/EXSTART.*GigabitEthernet1$/m);
    expect(v.lab.config('R1', ['interface GigabitEthernet1', 'mtu 1500', 'end']).ok).toBe(true);
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf neighbor'))).toMatch(/FULL.*GigabitEthernet1$/m);
  });
});

describe('simulated lab: a BGP MD5 password on one end only (AD000009)', () => {
  const v = virtualLab('AD000009');

  it('takes the session down on both ends, the changed end logs the bad digest the FS detects, and the key shows in its config', async () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000009', device: 'R1', neighbor: '10.0.0.2' }));
    const bad = logs(v.lab, 'R1', '%TCP-6-BADAUTH');
    expect(bad).toHaveLength(1);
    expect(extractFromLogLine(v.group.fs, bad[0]!)?.vars).toEqual({ neighbor_ip: '10.0.0.2' });
    expect(bgpState(v.lab, '10.0.0.2')).toBe('Active');
    expect(bgpState(v.lab, '10.0.0.1', 'R2')).toBe('Active');
    expect(logs(v.lab, 'R1', '%BGP-3-NOTIFICATION').at(-1)).toContain('sent to neighbor 10.0.0.2 4/0 (hold time expired)');
    expect(cliOutput(v.lab.exec('R1', 'show running-config | include password'))).toMatch(/^ neighbor 10\.0\.0\.2 password \S+$/m);
    expect(cliOutput(v.lab.exec('R2', 'show running-config | include password'))).toBe('');
    // The session over R1's other link is untouched.
    expect(bgpState(v.lab, '10.0.0.6')).toBe('Established');
  });

  it('comes back once both ends agree: the same key on both, or none on either', async () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000009', device: 'R1', neighbor: '10.0.0.2' }));
    expect(v.lab.config('R2', ['router bgp 65002', 'neighbor 10.0.0.1 password 0 other-key', 'end']).ok).toBe(true);
    await v.clock.advance(10_000);
    expect(bgpState(v.lab, '10.0.0.2')).toBe('Active');
    expect(v.lab.config('R1', ['router bgp 65001', 'no neighbor 10.0.0.2 password', 'end']).ok).toBe(true);
    expect(v.lab.config('R2', ['router bgp 65002', 'no neighbor 10.0.0.1 password', 'end']).ok).toBe(true);
    await v.clock.advance(10_000);
    expect(bgpState(v.lab, '10.0.0.2')).toBe('Established');
    expect(bgpState(v.lab, '10.0.0.1', 'R2')).toBe('Established');
  });
});
