import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { alertResultSchema } from '../../../src/adapters/alert-sources/schema';
import { loadArtifactGroup } from '../../../src/runbooks/load';
import { extractFromLogLine } from '../../../src/runbooks/variables';
import { createAlertThrottle, detectFaults, splunkAlertForDetection, type Detection } from '../../../harness/frr-lab/detectors';
import { QUIET_MS, silentResetSearch } from '../../../harness/frr-lab/detectors-mismatch';
import { repoRoot } from '../../helpers/opencode';

/**
 * Lines captured from the FRR lab (FRR 8.4.4), 2026-11-29. R1's eth-R2 lowered to MTU 1400 while R2 keeps
 * 1500: R1 resets the interface, then refuses R2's database description every retransmit; R2 logs nothing.
 * Then `neighbor 10.0.0.2 password …` on R1 only: R1's reset line, and silence (the kernel drops the segments).
 */
const MTU = [
  '2026/11/29 04:36:46.479176 OSPF: [Y05P2-YJVXY] AdjChg: Nbr 192.168.255.2, NbrIP 10.0.0.2 (default) on eth-R2:10.0.0.1: Full -> Deleted (KillNbr)',
  "2026/11/29 04:36:46.485063 OSPF: [XZZ9Y-NNTMQ][EC 134217741] Packet[DD]: Neighbor 192.168.255.2 MTU 1500 is larger than [eth-R2:10.0.0.1]'s MTU 1400",
  "2026/11/29 04:36:51.481343 OSPF: [XZZ9Y-NNTMQ][EC 134217741] Packet[DD]: Neighbor 192.168.255.2 MTU 1500 is larger than [eth-R2:10.0.0.1]'s MTU 1400",
];
const FULL = '2026/11/29 04:38:09.356129 OSPF: [Y05P2-YJVXY] AdjChg: Nbr 192.168.255.2, NbrIP 10.0.0.2 (default) on eth-R2:10.0.0.1: Loading -> Full (LoadingDone)';
const RESET = '2026/11/29 04:35:08.693210 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor 10.0.0.2 6/6 (Cease/Other Configuration Change) 0 bytes ';
const DOWN = '2026/11/29 04:35:08.700942 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Down BGP Notification send';
/** What a wrong remote-as and a missing update-source log after the same reset line (AD000006, AD000007). */
const LOUD = [
  '2026/11/27 01:36:34.960024 BGP: [HZN6M-XRM1G] %NOTIFICATION: sent to neighbor 10.0.0.2 2/2 (OPEN Message Error/Bad Peer AS) 2 bytes f',
  '2026/11/26 22:18:54.840010 BGP: [M3MYP-BVWDS][EC 33554460] 10.0.0.2: nexthop_set failed, resetting connection - intf (Unknown)',
];
const UP = '2026/11/29 04:35:10.715695 BGP: [N9HHH-F8H1M] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Up';

describe('FRR lab watcher: AD000008 from ospfd refusing the larger database description', () => {
  it('alerts the refusing end with the interface and both MTUs, once until the adjacency is Full again', async () => {
    const hits = MTU.flatMap((l) => detectFaults(l));
    expect(hits.map((d) => [d.alert_def_id, d.fields])).toEqual([
      ['AD000008', { interface: 'eth-R2', neighbor_id: '192.168.255.2', neighbor_mtu: '1500', local_mtu: '1400' }],
      ['AD000008', { interface: 'eth-R2', neighbor_id: '192.168.255.2', neighbor_mtu: '1500', local_mtu: '1400' }],
    ]);
    const throttle = createAlertThrottle();
    const posted = (lines: string[]) => lines.flatMap((l) => throttle.admit('R1', detectFaults(l), undefined, l)).length;
    expect(posted(MTU)).toBe(1);
    expect(posted([FULL, MTU[1]!])).toBe(1);
    // What the relay accepts, and the FS reads the same fields from the line: no contradictory context.
    const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000008');
    const alert = splunkAlertForDetection('R1', hits[0]!);
    expect(alertResultSchema.safeParse(alert.result).success).toBe(true);
    expect(extractFromLogLine(group.fs, hits[0]!.raw)?.vars).toEqual(hits[0]!.fields);
  });
});

describe('FRR lab watcher: AD000009 from a configuration reset followed by silence', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const search = () => {
    const posted: Array<[string, Detection]> = [];
    const s = silentResetSearch((router, d) => posted.push([router, d]), (_r, n) => (n === '10.0.0.2' ? 65002 : undefined));
    return { s, posted };
  };

  it('posts the reset line once the session stayed silent for the quiet window, with the neighbor and its AS', async () => {
    const { s, posted } = search();
    s.observe('R1', RESET);
    s.observe('R1', DOWN);
    // Another router's lines, and OSPF naming the same address, are not this session speaking.
    s.observe('R2', UP.replace('10.0.0.2(R2)', '10.0.0.1(R1)'));
    s.observe('R1', MTU[0]!);
    vi.advanceTimersByTime(QUIET_MS - 1);
    expect(posted).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(posted.map(([r, d]) => [r, d.alert_def_id, d.fields, d.raw])).toEqual([['R1', 'AD000009', { neighbor_ip: '10.0.0.2', neighbor_as: '65002' }, RESET.trim()]]);
    const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000009');
    expect(extractFromLogLine(group.fs, posted[0]![1].raw)?.vars).toEqual({ neighbor_ip: '10.0.0.2' });
    expect(alertResultSchema.safeParse(splunkAlertForDetection('R1', posted[0]![1]).result).success).toBe(true);
  });

  it('posts nothing when the session comes back, or another fault speaks about the neighbor, and never on a single line', () => {
    for (const after of [UP, ...LOUD]) {
      const { s, posted } = search();
      s.observe('R1', RESET);
      s.observe('R1', DOWN);
      s.observe('R1', after);
      vi.advanceTimersByTime(QUIET_MS * 2);
      expect(posted).toEqual([]);
    }
    // The per-line detectors never take the reset line for this alert (nor for any other).
    expect(detectFaults(RESET)).toEqual([]);
    const { s, posted } = search();
    s.observe('R1', RESET);
    s.close();
    vi.advanceTimersByTime(QUIET_MS * 2);
    expect(posted).toEqual([]);
  });
});
