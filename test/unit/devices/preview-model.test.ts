import { describe, expect, it } from 'vitest';
import { groupsAsLines, restorePaths } from '../../../src/adapters/devices/config-diff';
import { predictConfig, predictDiff } from '../../../src/adapters/devices/preview-model';

const RUNNING = `Building configuration...

Current configuration:
!
frr version 8.4.4
hostname R1
!
router bgp 65001
 bgp router-id 192.168.255.1
 neighbor 10.0.0.2 remote-as 65002
 neighbor 10.0.0.2 shutdown
 neighbor 10.0.0.2 timers connect 1
 !
 address-family ipv4 unicast
  network 192.168.255.1/32
 exit-address-family
exit
!
end
`;

/** A router with a neighbor that has address-family lines, a VRF instance beside it and an interface. */
const WIDE = `hostname R1
interface eth-R2
 description to-R2
 ip ospf hello-interval 1
exit
!
router bgp 65001
 neighbor 10.0.0.2 remote-as 65002
 neighbor 10.0.0.20 remote-as 65020
 address-family ipv4 unicast
  network 192.168.255.1/32
  neighbor 10.0.0.2 maximum-prefix 12
  neighbor 10.0.0.2 route-map IN in
 exit-address-family
exit
!
router bgp 65001 vrf CUST-A
 neighbor 10.1.1.2 remote-as 65002
exit
!
end
`;

describe('the predicted diff of configuration lines (FRR / IOS family)', () => {
  it('`no X` in a block removes X there; a line already present changes nothing', () => {
    expect(predictDiff(RUNNING, ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'neighbor 10.0.0.2 remote-as 65002'])).toEqual({ added: [], removed: ['router bgp 65001 > neighbor 10.0.0.2 shutdown'] });
  });

  it('a value set again replaces the old one; `no neighbor X` takes every line of X', () => {
    expect(predictDiff(RUNNING, ['router bgp 65001', 'neighbor 10.0.0.2 remote-as 65003'])).toEqual({
      added: ['router bgp 65001 > neighbor 10.0.0.2 remote-as 65003'],
      removed: ['router bgp 65001 > neighbor 10.0.0.2 remote-as 65002'],
    });
    expect(predictDiff(RUNNING, ['router bgp 65001', 'no neighbor 10.0.0.2']).removed).toEqual([
      'router bgp 65001 > neighbor 10.0.0.2 remote-as 65002',
      'router bgp 65001 > neighbor 10.0.0.2 shutdown',
      'router bgp 65001 > neighbor 10.0.0.2 timers connect 1',
    ]);
  });

  it('address-family opens a block under the router; exit-address-family leaves it', () => {
    expect(predictDiff(RUNNING, ['router bgp 65001', 'address-family ipv4 unicast', 'network 10.9.9.0/24', 'exit-address-family', 'neighbor 10.0.0.2 description x'])).toEqual({
      added: ['router bgp 65001 > address-family ipv4 unicast > network 10.9.9.0/24', 'router bgp 65001 > neighbor 10.0.0.2 description x'],
      removed: [],
    });
  });

  it('`no neighbor X` takes every line of X, its address-family lines too, and no other neighbor', () => {
    expect(predictDiff(WIDE, ['router bgp 65001', 'no neighbor 10.0.0.2'])).toEqual({
      added: [],
      removed: [
        'router bgp 65001 > neighbor 10.0.0.2 remote-as 65002',
        'router bgp 65001 > address-family ipv4 unicast > neighbor 10.0.0.2 maximum-prefix 12',
        'router bgp 65001 > address-family ipv4 unicast > neighbor 10.0.0.2 route-map IN in',
      ],
    });
    // `no neighbor X remote-as N` deletes the neighbor too.
    expect(predictDiff(WIDE, ['router bgp 65001', 'no neighbor 10.0.0.2 remote-as 65002']).removed).toHaveLength(3);
  });

  it('`no router bgp N` removes that instance whole and only it; `no interface X` the interface block', () => {
    const bgp = predictDiff(WIDE, ['no router bgp 65001']).removed;
    expect(bgp).toContain('router bgp 65001');
    expect(bgp).toContain('router bgp 65001 > address-family ipv4 unicast > network 192.168.255.1/32');
    expect(bgp.filter((l) => l.includes('vrf CUST-A'))).toEqual([]);
    expect(bgp).toHaveLength(7);
    expect(predictDiff(WIDE, ['no interface eth-R2']).removed).toEqual(['interface eth-R2', 'interface eth-R2 > description to-R2', 'interface eth-R2 > ip ospf hello-interval 1']);
  });

  it('`default interface X` (IOS family) empties the interface and keeps it; mode lines are not configuration', () => {
    expect(predictDiff(WIDE, ['configure terminal', 'default interface eth-R2', 'end'])).toEqual({ added: [], removed: ['interface eth-R2 > description to-R2', 'interface eth-R2 > ip ospf hello-interval 1'] });
  });

  it('the rollback the preview shows puts back what the change removes, as a person reads it', () => {
    const { before, after } = predictConfig(WIDE, ['router bgp 65001', 'no neighbor 10.0.0.2']);
    expect(groupsAsLines(restorePaths(before, after))).toEqual([
      'router bgp 65001',
      ' neighbor 10.0.0.2 remote-as 65002',
      ' address-family ipv4 unicast',
      '  neighbor 10.0.0.2 maximum-prefix 12',
      '  neighbor 10.0.0.2 route-map IN in',
    ]);
    const raised = predictConfig(WIDE, ['router bgp 65001', 'address-family ipv4 unicast', 'neighbor 10.0.0.2 maximum-prefix 120']);
    expect(groupsAsLines(restorePaths(raised.before, raised.after))).toEqual([
      'router bgp 65001',
      ' address-family ipv4 unicast',
      '  no neighbor 10.0.0.2 maximum-prefix 120',
      '  neighbor 10.0.0.2 maximum-prefix 12',
    ]);
  });
});
