import { describe, expect, it } from 'vitest';
import { alertResultSchema } from '../../../src/adapters/alert-sources/schema';
import { isAdminDown, parseAdjChange } from '../../../harness/frr-lab/adjchange';
import { detectFaults, splunkAlertForDetection } from '../../../harness/frr-lab/detectors';
import { bgpdConf, planRouters } from '../../../harness/frr-lab/topology';

const DOWN = '2026/11/23 17:18:10.643259 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Down Admin. shutdown';
const PEER = '2026/11/23 17:18:10.646275 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.1(R1) in vrf default Down BGP Notification received';

describe('FRR adjacency log lines', () => {
  it('reads the neighbour, peer, VRF, state and reason', () => {
    expect(parseAdjChange(DOWN)).toMatchObject({ neighbor: '10.0.0.2', peerHost: 'R2', vrf: 'default', state: 'Down', reason: 'Admin. shutdown' });
    expect(parseAdjChange('2026/11/23 17:18:12.660011 BGP: [N9HHH-F8H1M] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf CUST-A Up')).toMatchObject({ state: 'Up', vrf: 'CUST-A' });
    expect(parseAdjChange('2026/11/23 17:18:18.490333 BGP: [HZN6M-XRM1G] %NOTIFICATION(Hard Reset): sent to neighbor 10.0.0.2 6/2')).toBeUndefined();
  });

  it('alerts only on the shut router\'s line, in the shape the relay accepts', () => {
    expect(isAdminDown(parseAdjChange(DOWN)!)).toBe(true);
    expect(isAdminDown(parseAdjChange(PEER)!)).toBe(false);
    const alert = splunkAlertForDetection('R1', detectFaults(DOWN, { peerAs: () => 65002 })[0]!);
    expect(alert.result).toMatchObject({ alert_def_id: 'AD000002', system: 'R1', neighbor_ip: '10.0.0.2', neighbor_as: '65002', _raw: DOWN, sourcetype: 'frr:bgp' });
    // Tagged by the daemon that logged the line, as a per-daemon input would.
    const zebra = '2026/11/27 01:15:48.663635 ZEBRA: [W6BZR-YZPAB] RTM_NEWLINK update for eth-R2(2) sl_type 0 master 0 flags 0x1002';
    const shut = detectFaults(zebra, {}).find((d) => d.alert_def_id === 'AD000003');
    expect(shut && splunkAlertForDetection('R1', shut).result.sourcetype).toBe('frr:zebra');
    expect(alert.result).not.toHaveProperty('vrf_name');
    expect(alertResultSchema.safeParse(alert.result).success).toBe(true);
  });
});

describe('FRR lab plan', () => {
  it('chains routers so R1 10.0.0.1 peers with R2 10.0.0.2, each AS 65000+k', () => {
    const [r1, r2, r3] = planRouters('frl0000', 3);
    expect(r1!.links).toEqual([{ ifname: 'eth-R2', address: '10.0.0.1', peer: 'R2', peerAddress: '10.0.0.2', peerAs: 65002 }]);
    expect(r2!.links.map((l) => l.peerAddress)).toEqual(['10.0.0.1', '10.0.1.2']);
    expect(r3!.namespace).toBe('frl0000-R3');
    expect(() => planRouters('x', 1)).toThrow('--routers must be a whole number from 2 to 20');
  });

  it('writes the log line the watcher needs and fast timers', () => {
    const conf = bgpdConf(planRouters('frl0000', 2)[0]!);
    expect(conf).toContain(' bgp log-neighbor-changes');
    expect(conf).toContain(' timers bgp 1 3');
    expect(conf).toContain(' neighbor 10.0.0.2 timers connect 1');
  });
});
