import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alertResultSchema } from '../../../src/adapters/alert-sources/schema';
import { loadArtifactGroup } from '../../../src/runbooks/load';
import { extractFromLogLine } from '../../../src/runbooks/variables';
import { parseAdjChange } from '../../../harness/frr-lab/adjchange';
import { createAlertThrottle, detectFaults, splunkAlertForDetection } from '../../../harness/frr-lab/detectors';
import { repoRoot } from '../../helpers/opencode';

/**
 * Lines captured from the FRR lab's routers (FRR 8.4.4, `log timestamp precision 6`), 2026-11-26:
 * R1 with `neighbor 10.0.0.2 shutdown`, then with `neighbor 10.0.0.2 maximum-prefix 1` while R2 sends 2.
 */
const LOG = [
  '2026/11/26 22:04:23.051008 BGP: [N9HHH-F8H1M] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Up',
  '2026/11/26 22:04:24.153493 BGP: [M59KS-A3ZXZ] bgp_update_receive: rcvd End-of-RIB for IPv4 Unicast from 10.0.0.2 in vrf default',
  '2026/11/23 17:18:10.643259 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Down Admin. shutdown',
  '2026/11/23 17:18:10.646275 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.1(R1) in vrf default Down BGP Notification received',
  '2026/11/26 22:04:25.823846 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Down Interface down',
  '2026/11/26 22:04:42.946076 BGP: [QAZ2C-BZRW5] %MAXPFXEXCEED: No. of IPv4 Unicast prefix received from 10.0.0.2(R2) 2 exceed, limit 1',
  '2026/11/26 22:04:42.946203 BGP: [HZN6M-XRM1G] %NOTIFICATION(Hard Reset): sent to neighbor 10.0.0.2 6/1 (Cease/Maximum Number of Prefixes Reached) 7 bytes 00 01 ',
  '2026/11/26 22:04:42.946588 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Down BGP Notification send',
  '2026/11/26 22:04:33.613601 ZEBRA: [M7Q4P-46WDR] vty[48]@(config-if)# shutdown',
  '2026/11/26 22:18:52.820449 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor 10.0.0.2 6/6 (Cease/Other Configuration Change) 0 bytes ',
  '2026/11/26 22:18:54.840010 BGP: [M3MYP-BVWDS][EC 33554460] 10.0.0.2: nexthop_set failed, resetting connection - intf (Unknown)',
  '2026/11/26 22:18:54.840054 BGP: [NQGZV-Y3W62][EC 100663299] bgp_connect_success: bgp_getsockname(): failed for peer 10.0.0.2, fd 24',
  '2026/11/26 22:18:54.840091 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor 10.0.0.2 5/0 (Neighbor Events Error/Unspecific) 0 bytes ',
];

/** FRR's retry of a session with a missing update-source: the same three lines every second (R1, lab). */
const RETRY = LOG.slice(-3);
const UP = '2026/11/26 22:19:10.033467 BGP: [N9HHH-F8H1M] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Up';

describe('FRR lab watcher: which log lines are alerts, of which definition', () => {
  it('alerts once per fault, on the line that names its cause, never on the symptoms around it', () => {
    const alerts = LOG.flatMap((line) => detectFaults(line, { peerAs: (n) => (n === '10.0.0.2' ? 65002 : undefined) }));
    expect(alerts.map((a) => [a.alert_def_id, a.fields])).toEqual([
      ['AD000002', { neighbor_ip: '10.0.0.2', neighbor_as: '65002' }],
      ['AD000004', { neighbor_ip: '10.0.0.2', prefix_count: '2', prefix_limit: '1', neighbor_as: '65002' }],
      ['AD000007', { neighbor_ip: '10.0.0.2', neighbor_as: '65002' }],
    ]);
  });

  it('posts a repeating line once per neighbor until its session is Up, then again for the next occurrence', () => {
    const throttle = createAlertThrottle();
    const posted = (lines: string[], router = 'R1') => lines.flatMap((l) => throttle.admit(router, detectFaults(l), parseAdjChange(l))).map((d) => d.alert_def_id);
    expect(posted([...RETRY, ...RETRY, ...RETRY])).toEqual(['AD000007']);
    // Another router's same neighbor address is another fault.
    expect(posted(RETRY, 'R3')).toEqual(['AD000007']);
    expect(posted([UP, ...RETRY])).toEqual(['AD000007']);
  });

  it('names the VRF of a VRF neighbor and nothing for the global table', () => {
    const [vrf] = detectFaults('2026/11/23 17:18:10.643259 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.1.1.2(R2) in vrf CUST-A Down Admin. shutdown');
    expect(vrf!.fields).toEqual({ neighbor_ip: '10.1.1.2', vrf_name: 'CUST-A' });
  });

  it('posts what the relay accepts, and what the runbook reads from the line agrees with the alert fields', async () => {
    for (const detection of LOG.flatMap((line) => detectFaults(line))) {
      const alert = splunkAlertForDetection('R1', detection);
      expect(alertResultSchema.safeParse(alert.result).success).toBe(true);
      expect(alert.result).toMatchObject({ alert_def_id: detection.alert_def_id, system: 'R1', device_platform: 'frr', _raw: detection.raw });
      // The FS's own detection pattern recognises the line and yields the same fields: no contradictory context.
      const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), detection.alert_def_id);
      expect(extractFromLogLine(group.fs, detection.raw)?.vars).toEqual(detection.fields);
    }
  });
});
