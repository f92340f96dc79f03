import { describe, expect, it } from 'vitest';
import { extractFromLogLine } from '../../../src/runbooks/variables';
import { parseFaultSpec } from '../../../src/runbooks/fault-spec';
import type { Lab } from '../../../harness/ios-lab/lab';
import { cliOutput, virtualLab } from '../../helpers/virtual-lab';

const v = virtualLab('AD000005');
const ospfLogs = (lab: Lab, host: string) => cliOutput(lab.exec(host, 'show logging')).split('\n').filter((l) => l.includes('%OSPF-5-ADJCHG'));

describe('OSPF in the simulated lab', () => {
  it('runs area 0.0.0.0 on the links between the routers, Full both ways, and nowhere else', () => {
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf neighbor'))).toMatch(/^10\.255\.0\.2\s+0\s+FULL\/ {2}-\s+\S+\s+10\.0\.0\.2\s+GigabitEthernet1$/m);
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf neighbor'))).toMatch(/^10\.255\.0\.3\s.*GigabitEthernet2$/m);
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf interface brief'))).toMatch(/^Gi1\s+1\s+0\.0\.0\.0\s+10\.0\.0\.1\/30\s+1\s+P2P\s+1\/1$/m);
    // The customer VRF interface and the loopback are not in OSPF.
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf interface GigabitEthernet3'))).toBe('%OSPF: OSPF not enabled on GigabitEthernet3');
    expect(cliOutput(v.lab.exec('R1', 'show running-config | section router ospf'))).toBe(
      ['router ospf 1', ' router-id 10.255.0.1', ' network 10.0.0.0 0.0.0.3 area 0.0.0.0', ' network 10.0.0.4 0.0.0.3 area 0.0.0.0'].join('\n'),
    );
  });

  it('a passive interface (AD000005) loses its adjacency and logs the line the FS detects; the neighbor logs the dead timer', () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000005', device: 'R1', interface: 'GigabitEthernet1' }));
    const r1 = ospfLogs(v.lab, 'R1');
    expect(r1.map((l) => extractFromLogLine(v.group.fs, l)?.vars)).toEqual([{ neighbor_id: '10.255.0.2', interface: 'GigabitEthernet1' }]);
    const r2 = ospfLogs(v.lab, 'R2');
    expect(r2).toHaveLength(1);
    expect(r2[0]).toContain('%OSPF-5-ADJCHG: Process 1, Nbr 10.255.0.1 on GigabitEthernet1 from FULL to DOWN, Neighbor Down: Dead timer expired');
    expect(extractFromLogLine(v.group.fs, r2[0]!)).toBeUndefined();

    const detail = cliOutput(v.lab.exec('R1', 'show ip ospf interface GigabitEthernet1'));
    expect(detail).toMatch(/^GigabitEthernet1 is up, line protocol is up/);
    expect(detail).toContain('Area 0.0.0.0');
    expect(detail).toContain('    No Hellos (Passive interface)');
    expect(detail).toContain('Adjacent neighbor count is 0');
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf neighbor'))).not.toContain('10.255.0.2');
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf neighbor'))).toContain('10.255.0.3');
    expect(cliOutput(v.lab.exec('R1', 'show running-config | section router ospf'))).toContain('\n passive-interface GigabitEthernet1\n');
    // BGP over the same link is untouched.
    expect(cliOutput(v.lab.exec('R1', 'show ip bgp summary'))).toMatch(/^10\.0\.0\.2 .*\s12$/m);
  });

  it('comes back Full once the passive line is removed, logging LOADING to FULL on both ends', () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000005', device: 'R1', interface: 'GigabitEthernet1' }));
    expect(v.lab.config('R1', ['router ospf 1', 'no passive-interface Gi1', 'end']).ok).toBe(true);
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf interface GigabitEthernet1'))).toContain('Adjacent neighbor count is 1');
    expect(ospfLogs(v.lab, 'R1').at(-1)).toContain('Nbr 10.255.0.2 on GigabitEthernet1 from LOADING to FULL, Loading Done');
    expect(ospfLogs(v.lab, 'R2').at(-1)).toContain('Nbr 10.255.0.1 on GigabitEthernet1 from LOADING to FULL, Loading Done');
    expect(cliOutput(v.lab.exec('R1', 'show running-config | section router ospf'))).not.toContain('passive-interface');
  });

  it('stays down while the neighbor is passive too, and refuses another OSPF process', () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000005', device: 'R1', interface: 'GigabitEthernet1' }));
    v.lab.inject(parseFaultSpec({ fault: 'AD000005', device: 'R2', interface: 'GigabitEthernet1' }));
    expect(v.lab.config('R1', ['router ospf 1', 'no passive-interface GigabitEthernet1', 'end']).ok).toBe(true);
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf interface GigabitEthernet1'))).toContain('Adjacent neighbor count is 0');
    const other = v.lab.config('R1', ['router ospf 2', 'no passive-interface GigabitEthernet1', 'end']);
    expect(other.ok).toBe(false);
    expect(other.ok ? '' : other.error).toContain('OSPF process 2 is not configured');
  });

  it('reports a shut interface as down, the other cause of the same IOS-XE line', () => {
    v.lab.inject(parseFaultSpec({ fault: 'interface_admin_down', device: 'R1', interface: 'GigabitEthernet1' }));
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf interface GigabitEthernet1'))).toMatch(/^GigabitEthernet1 is administratively down, line protocol is down/);
    expect(cliOutput(v.lab.exec('R1', 'show ip ospf interface brief'))).toMatch(/^Gi1\s.*\sDOWN\s+0\/0$/m);
  });
});
