import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alertResultSchema } from '../../../src/adapters/alert-sources/schema';
import { loadArtifactGroup } from '../../../src/runbooks/load';
import { extractFromLogLine } from '../../../src/runbooks/variables';
import { parseAdjChange } from '../../../harness/frr-lab/adjchange';
import { createAlertThrottle, detectFaults, splunkAlertForDetection } from '../../../harness/frr-lab/detectors';
import { ospfAdjacencyFull } from '../../../harness/frr-lab/detectors-ospf';
import { repoRoot } from '../../helpers/opencode';

/**
 * Lines captured from the FRR lab's routers (FRR 8.4.4, `log-adjacency-changes`, `log timestamp
 * precision 6`), 2026-11-27: the adjacency forming, then R1 with `ip ospf passive` on eth-R2 (R1's line,
 * then R2's for the same loss), then eth-R2 shut down on R1 (KillNbr, and BGP's line for the same link).
 */
const FORMED = [
  '2026/11/27 01:13:26.903129 ZEBRA: [V98V0-MTWPF] client 48 says hello and bids fair to announce only ospf routes vrf=0',
  '2026/11/27 01:13:27.925852 OSPF: [S5PCG-77H23] Packet[DD]: Neighbor 192.168.255.1 Negotiation done (Master).',
  '2026/11/27 01:13:27.927064 OSPF: [Y05P2-YJVXY] AdjChg: Nbr 192.168.255.1, NbrIP 10.0.0.1 (default) on eth-R1:10.0.0.2: Exchange -> Full (ExchangeDone)',
  '2026/11/27 01:13:27.932045 OSPF: [Y05P2-YJVXY] AdjChg: Nbr 192.168.255.2, NbrIP 10.0.0.2 (default) on eth-R2:10.0.0.1: Loading -> Full (LoadingDone)',
];
const R1_LOST = '2026/11/27 01:13:53.535367 OSPF: [Y05P2-YJVXY] AdjChg: Nbr 192.168.255.2, NbrIP 10.0.0.2 (default) on eth-R2:10.0.0.1: Full -> Deleted (InactivityTimer)';
const R2_LOST = '2026/11/27 01:13:53.927653 OSPF: [Y05P2-YJVXY] AdjChg: Nbr 192.168.255.1, NbrIP 10.0.0.1 (default) on eth-R1:10.0.0.2: Full -> Deleted (InactivityTimer)';
const SHUT = [
  '2026/11/27 01:14:08.651912 OSPF: [Y05P2-YJVXY] AdjChg: Nbr 192.168.255.2, NbrIP 10.0.0.2 (default) on eth-R2:10.0.0.1: Full -> Deleted (KillNbr)',
  '2026/11/27 01:14:08.651069 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Down Interface down',
];
const LOG = [...FORMED, R1_LOST, R2_LOST, ...SHUT];

describe('FRR lab watcher: OSPF adjacency lost (AD000005)', () => {
  it('alerts on each end\'s dead-interval line, never on the adjacency forming or going down with its link', () => {
    const alerts = LOG.flatMap((line) => detectFaults(line).filter((d) => d.alert_def_id === 'AD000005'));
    expect(alerts.map((a) => a.raw)).toEqual([R1_LOST, R2_LOST]);
    expect(alerts[0]!.fields).toEqual({ neighbor_id: '192.168.255.2', neighbor_ip: '10.0.0.2', interface: 'eth-R2' });
    // No other definition claims an OSPF line.
    expect([...FORMED, R1_LOST, R2_LOST, SHUT[0]!].flatMap((l) => detectFaults(l)).map((d) => d.alert_def_id)).toEqual(['AD000005', 'AD000005']);
  });

  it('names the area the lab\'s inventory gives the interface, and none for an interface it does not know', () => {
    const ospfArea = (i: string) => (i === 'eth-R2' ? '0.0.0.0' : undefined);
    expect(detectFaults(R1_LOST, { ospfArea })[0]!.fields).toEqual({ neighbor_id: '192.168.255.2', neighbor_ip: '10.0.0.2', interface: 'eth-R2', area: '0.0.0.0' });
    expect(detectFaults(R2_LOST, { ospfArea })[0]!.fields).not.toHaveProperty('area');
  });

  it('ignores another VRF than the default one, which the FS pattern does not cover', () => {
    expect(detectFaults(R1_LOST.replace('(default)', '(CUST-A)'))).toEqual([]);
  });

  it('posts an interface\'s loss once until its adjacency is Full again', () => {
    const throttle = createAlertThrottle();
    const posted = (lines: string[]) => lines.flatMap((l) => throttle.admit('R1', detectFaults(l), parseAdjChange(l), l)).map((d) => d.alert_def_id);
    expect(posted([R1_LOST, R1_LOST])).toEqual(['AD000005']);
    expect(ospfAdjacencyFull(FORMED[3]!)).toBe('eth-R2');
    expect(posted([FORMED[3]!, R1_LOST])).toEqual(['AD000005']);
  });

  it('posts what the relay accepts, and what the runbook reads from the line agrees with the alert fields', async () => {
    const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000005');
    for (const detection of LOG.flatMap((line) => detectFaults(line)).filter((d) => d.alert_def_id === 'AD000005')) {
      const alert = splunkAlertForDetection('R1', { ...detection, fields: { ...detection.fields, area: '0.0.0.0' } });
      expect(alertResultSchema.safeParse(alert.result).success).toBe(true);
      expect(alert.result).toMatchObject({ alert_def_id: 'AD000005', system: 'R1', device_platform: 'frr', area: '0.0.0.0', _raw: detection.raw });
      // The FS's own detection pattern recognises the line and yields the same fields: no contradictory context.
      expect(extractFromLogLine(group.fs, detection.raw)?.vars).toEqual(detection.fields);
    }
    // And it matches no line the detector leaves alone.
    for (const line of [...FORMED, ...SHUT]) expect(extractFromLogLine(group.fs, line)).toBeUndefined();
  });
});
