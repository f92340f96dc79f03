import { describe, expect, it } from 'vitest';
import { describeDifference, parseRunningConfig, restoreCommands } from '../../../src/adapters/devices/config-diff';

const BEFORE = `Building configuration...

Current configuration:
!
frr version 8.4.4
frr defaults traditional
hostname R1
!
router bgp 65001
 bgp router-id 192.168.255.1
 no bgp ebgp-requires-policy
 neighbor 10.0.0.2 remote-as 65002
 neighbor 10.0.0.2 description old
 !
 address-family ipv4 unicast
  network 192.168.255.1/32
 exit-address-family
exit
!
end`;

describe('running configuration differences', () => {
  it('reads lines with their parents and ignores what is not configuration', () => {
    const paths = parseRunningConfig(BEFORE);
    expect(paths).toContainEqual(['router bgp 65001', 'address-family ipv4 unicast', 'network 192.168.255.1/32']);
    expect(paths.flat()).not.toContain('exit-address-family');
    expect(paths.flat().some((l) => l.startsWith('frr version') || l.startsWith('Building'))).toBe(false);
  });

  it('undoes added lines and restores changed and removed ones, inside their blocks', () => {
    const during = BEFORE.replace(' neighbor 10.0.0.2 description old', ' neighbor 10.0.0.2 description new\n neighbor 10.0.0.2 shutdown').replace(' no bgp ebgp-requires-policy\n', '');
    expect(restoreCommands(BEFORE, during)).toEqual([
      ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'],
      ['router bgp 65001', 'no neighbor 10.0.0.2 description new'],
      ['router bgp 65001', 'no bgp ebgp-requires-policy'],
      ['router bgp 65001', 'neighbor 10.0.0.2 description old'],
    ]);
  });

  it('puts a neighbor\'s old remote-as back over the new one: on FRR its `no` form deletes the neighbor with its other lines', () => {
    const during = BEFORE.replace(' neighbor 10.0.0.2 remote-as 65002', ' neighbor 10.0.0.2 remote-as 65020');
    expect(restoreCommands(BEFORE, during)).toEqual([['router bgp 65001', 'neighbor 10.0.0.2 remote-as 65002']]);
    // A remote-as added for a new neighbor still goes with its neighbor.
    const added = BEFORE.replace(' neighbor 10.0.0.2 description old', ' neighbor 10.0.0.2 description old\n neighbor 10.0.0.9 remote-as 65009');
    expect(restoreCommands(BEFORE, added)).toEqual([['router bgp 65001', 'no neighbor 10.0.0.9 remote-as 65009']]);
  });

  it('removes a new block with one line, not line by line', () => {
    const during = `${BEFORE.replace(/end$/, '')}route-map X permit 10\n set metric 5\nexit\n!\nend`;
    expect(restoreCommands(BEFORE, during)).toEqual([['no route-map X permit 10']]);
  });

  it('names what still differs', () => {
    expect(describeDifference(BEFORE, BEFORE)).toEqual([]);
    expect(describeDifference(BEFORE, BEFORE.replace('description old', 'description new'))).toEqual([
      'missing: router bgp 65001 › neighbor 10.0.0.2 description old',
      'extra: router bgp 65001 › neighbor 10.0.0.2 description new',
    ]);
  });
});
