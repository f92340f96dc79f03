import { describe, expect, it } from 'vitest';
import { extractFromLogLine } from '../../../src/runbooks/variables';
import { parseFaultSpec } from '../../../src/runbooks/fault-spec';
import { mistypedAs } from '../../../harness/ios-lab/remote-as-fault';
import { bgpState, cliOutput, virtualLab } from '../../helpers/virtual-lab';

const v = virtualLab('AD000006');

describe('a neighbor configured in the wrong AS in the simulated lab (AD000006)', () => {
  it('mistypes the AS as a person would', () => {
    expect([65002, 65003, 65010, 65011].map(mistypedAs)).toEqual([65020, 65030, 65001, 65012]);
  });

  it('logs the notification the FS detects, with the peer\'s AS in its data, and shows why the session is down', () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000006', device: 'R1', neighbor: '10.0.0.2' }));
    const hits = cliOutput(v.lab.exec('R1', 'show logging')).split('\n').map((l) => extractFromLogLine(v.group.fs, l)).filter(Boolean);
    expect(hits).toEqual([{ pattern: 'iosxe_bad_peer_as', vars: { neighbor_ip: '10.0.0.2', open_as_hex: 'FDEA' } }]);
    expect(parseInt('FDEA', 16)).toBe(65002);
    const detail = cliOutput(v.lab.exec('R1', 'show ip bgp neighbors 10.0.0.2'));
    expect(detail).toMatch(/^BGP neighbor is 10\.0\.0\.2, {2}remote AS 65020, external link$/m);
    expect(detail).toMatch(/^ {2}Last reset \S+, due to BGP Notification sent, peer in wrong AS$/m);
    expect(bgpState(v.lab, '10.0.0.2')).toBe('Active');
    expect(cliOutput(v.lab.exec('R1', 'show running-config | section router bgp'))).toContain(' neighbor 10.0.0.2 remote-as 65020');
  });

  it('comes back once the remote-as is the peer\'s, and not while it is another wrong one', () => {
    v.lab.inject(parseFaultSpec({ fault: 'AD000006', device: 'R1', neighbor: '10.0.0.2' }));
    expect(v.lab.config('R1', ['router bgp 65001', 'neighbor 10.0.0.2 remote-as 65200', 'end']).ok).toBe(true);
    v.clock.advance(10_000);
    expect(bgpState(v.lab, '10.0.0.2')).toBe('Active');
    expect(v.lab.config('R1', ['router bgp 65001', 'neighbor 10.0.0.2 remote-as 65002', 'end']).ok).toBe(true);
    v.clock.advance(10_000);
    expect(bgpState(v.lab, '10.0.0.2')).toBe('Established');
    // Only an existing neighbor's AS changes here; an unknown neighbor is refused as before.
    expect(v.lab.config('R1', ['router bgp 65001', 'neighbor 10.9.9.9 remote-as 65002', 'end']).ok).toBe(false);
  });
});
