import { describe, expect, it } from 'vitest';
import { predictDiff } from '../../../src/devices/preview-model';

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
});
