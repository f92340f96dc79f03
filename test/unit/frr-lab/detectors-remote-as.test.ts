import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alertResultSchema } from '../../../src/adapters/alert-sources/schema';
import { loadArtifactGroup } from '../../../src/runbooks/load';
import { extractFromLogLine } from '../../../src/runbooks/variables';
import { parseAdjChange } from '../../../harness/frr-lab/adjchange';
import { createAlertThrottle, detectFaults, splunkAlertForDetection } from '../../../harness/frr-lab/detectors';
import { repoRoot } from '../../helpers/opencode';

/**
 * Lines captured from the FRR lab (FRR 8.4.4), 2026-11-27: R1 (AS 65001) configured with
 * `neighbor 10.0.0.2 remote-as 65020` while R2 is AS 65002, then corrected. R1 rejects each OPEN (every
 * connect retry) and logs only the first hex digit of the data; R2 logs the notification as received, whole.
 */
const R1 = [
  '2026/11/27 01:24:34.701583 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor 10.0.0.2 6/6 (Cease/Other Configuration Change) 0 bytes ',
  '2026/11/27 01:24:34.701742 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Down BGP Notification send',
  '2026/11/27 01:36:34.960024 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor 10.0.0.2 2/2 (OPEN Message Error/Bad Peer AS) 2 bytes f',
  '2026/11/27 01:24:36.709203 BGP: [HTQD2-0R1WR][EC 33554451] bgp_process_packet: BGP OPEN receipt failed for peer: 10.0.0.2',
  '2026/11/27 01:36:34.961022 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor 10.0.0.2 2/2 (OPEN Message Error/Bad Peer AS) 2 bytes f',
];
const R2 = [
  '2026/11/27 01:24:36.705902 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor 10.0.0.1 6/7 (Cease/Connection Collision Resolution) 0 bytes ',
  '2026/11/27 01:36:34.967464 BGP: [HZN6M-XRM1G] %NOTIFICATION: received from neighbor 10.0.0.1 2/2 (OPEN Message Error/Bad Peer AS) 2 bytes fd ea',
];
const UP = '2026/11/27 01:24:40.715695 BGP: [N9HHH-F8H1M] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Up';
/** The lab's peering records: R1's neighbor 10.0.0.2 is R2, AS 65002 (what the watcher passes). */
const peering = { peerAs: (n: string) => (n === '10.0.0.2' ? 65002 : undefined) };

describe('FRR lab watcher: AD000006 from the notification rejecting the peer\'s OPEN', () => {
  it('alerts the rejecting router\'s line with the neighbor and the peer\'s AS from the peering records, never the peer\'s line', () => {
    expect(R2.flatMap((l) => detectFaults(l, { peerAs: () => 65001 }))).toEqual([]);
    const alerts = R1.flatMap((l) => detectFaults(l, peering));
    expect(alerts.map((a) => [a.alert_def_id, a.search_name, a.fields])).toEqual([
      ['AD000006', 'BGP peer in wrong AS', { neighbor_ip: '10.0.0.2', peer_as: '65002' }],
      ['AD000006', 'BGP peer in wrong AS', { neighbor_ip: '10.0.0.2', peer_as: '65002' }],
    ]);
    expect(alerts[0]!.time).toBe(new Date(2026, 10, 27, 1, 36, 34).getTime() / 1000 + 0.960024);
    // No record of the peer: no AS is guessed (the runbook escalates the missing field).
    expect(detectFaults(R1[2]!)[0]!.fields).toEqual({ neighbor_ip: '10.0.0.2' });
  });

  it('alerts the same rejection marked Hard Reset (a session that had negotiated RFC 8538\'s notification bit)', async () => {
    const hard = '2026/11/27 05:41:02.118230 BGP: [HZN6M-XRM1G] %NOTIFICATION(Hard Reset): sent to neighbor 10.0.0.2 2/2 (OPEN Message Error/Bad Peer AS) 2 bytes f';
    expect(detectFaults(hard, peering).map((a) => [a.alert_def_id, a.fields])).toEqual([['AD000006', { neighbor_ip: '10.0.0.2', peer_as: '65002' }]]);
    const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000006');
    expect(extractFromLogLine(group.fs, hard)?.vars).toEqual({ neighbor_ip: '10.0.0.2' });
    // A Cease marked Hard Reset is another fault (AD000004's overflow, a reset): not this one.
    expect(detectFaults('2026/11/26 22:04:42.946203 BGP: [HZN6M-XRM1G] %NOTIFICATION(Hard Reset): sent to neighbor 10.0.0.2 6/1 (Cease/Maximum Number of Prefixes Reached) 7 bytes 00 01', peering).map((a) => a.alert_def_id)).not.toContain('AD000006');
  });

  it('posts the repeated rejection once until the session is Up, then again for the next occurrence', () => {
    const throttle = createAlertThrottle();
    const posted = (lines: string[]) => lines.flatMap((l) => throttle.admit('R1', detectFaults(l, peering), parseAdjChange(l), l)).map((d) => d.alert_def_id);
    expect(posted(R1)).toEqual(['AD000006']);
    expect(posted([UP, ...R1])).toEqual(['AD000006']);
  });

  it('posts what the relay accepts, and the FS reads the same fields from the line', async () => {
    const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000006');
    for (const detection of R1.flatMap((l) => detectFaults(l))) {
      const alert = splunkAlertForDetection('R1', detection);
      expect(alertResultSchema.safeParse(alert.result).success).toBe(true);
      expect(alert.result).toMatchObject({ alert_def_id: 'AD000006', system: 'R1', device_platform: 'frr', neighbor_ip: '10.0.0.2' });
      expect(extractFromLogLine(group.fs, detection.raw)?.vars).toEqual(detection.fields);
    }
    // peer_as is the lookup's, never the line's: the FS takes it from the alert only.
    expect(group.fs.variables.find((v) => v.name === 'peer_as')?.sources).toEqual(['alert']);
    for (const line of [...R1, ...R2].filter((l) => detectFaults(l).length === 0)) expect(extractFromLogLine(group.fs, line), line).toBeUndefined();
  });
});
