import { describe, expect, it } from 'vitest';
import { linkSubnet, ospfdConf } from '../../../harness/frr-lab/ospf';
import { planRouters } from '../../../harness/frr-lab/topology';

describe('ospfd in the FRR lab', () => {
  it('runs area 0.0.0.0 on the link subnets only, point-to-point with fast timers, logging adjacency changes', () => {
    const [, r2] = planRouters('frl0000', 3);
    const conf = ospfdConf(r2!);
    expect(conf).toContain('log file /var/log/frr/frl0000-R2/frr.log informational\n');
    expect(conf).toContain(' log-adjacency-changes\n');
    expect(conf).toContain(' ospf router-id 192.168.255.2\n');
    expect(conf.match(/^ network .*$/gm)).toEqual([' network 10.0.0.0/30 area 0.0.0.0', ' network 10.0.1.0/30 area 0.0.0.0']);
    expect(conf).toContain('interface eth-R1\n ip ospf network point-to-point\n ip ospf hello-interval 1\n ip ospf dead-interval 3\n');
    // Neither the router id (BGP advertises it) nor the CUST-A link is in OSPF: BGP's routes stay BGP's.
    expect(conf).not.toContain('192.168.255.2/32');
    expect(conf).not.toContain('10.1.1.');
  });

  it('takes a link address to its /30', () => {
    expect([linkSubnet('10.0.3.1'), linkSubnet('10.0.3.2')]).toEqual(['10.0.3.0/30', '10.0.3.0/30']);
  });
});
