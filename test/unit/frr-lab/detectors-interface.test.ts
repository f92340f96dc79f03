import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alertResultSchema } from '../../../src/adapters/alert-sources/schema';
import { loadArtifactGroup } from '../../../src/runbooks/load';
import { extractFromLogLine } from '../../../src/runbooks/variables';
import { parseAdjChange } from '../../../harness/frr-lab/adjchange';
import { createAlertThrottle, detectFaults, splunkAlertForDetection } from '../../../harness/frr-lab/detectors';
import { interfaceCameUp, parseLinkUpdate } from '../../../harness/frr-lab/detectors-interface';
import { repoRoot } from '../../helpers/opencode';

/**
 * Lines captured from the FRR lab's R1 (FRR 8.4.4, `debug zebra kernel`, zebra's log at debugging),
 * 2026-11-27: `shutdown` on eth-R2, `no shutdown`, R2's end of the link set down (R1 loses the carrier),
 * and the kernel taking R1's end down outside FRR.
 */
const SHUT = '2026/11/27 01:15:48.663635 ZEBRA: [W6BZR-YZPAB] RTM_NEWLINK update for eth-R2(2) sl_type 0 master 0 flags 0x1002';
const NO_SHUT = [
  '2026/11/27 01:15:53.588392 ZEBRA: [W6BZR-YZPAB] RTM_NEWLINK update for eth-R2(2) sl_type 0 master 0 flags 0x11003',
  '2026/11/27 01:15:53.588398 ZEBRA: [MR3ZF-ATDBY] Intf eth-R2(2) has gone DOWN',
  '2026/11/27 01:15:53.592610 ZEBRA: [W6BZR-YZPAB] RTM_NEWLINK update for eth-R2(2) sl_type 0 master 0 flags 0x11043',
  '2026/11/27 01:15:53.592613 ZEBRA: [N7FN2-J93A7] Intf eth-R2(2) has come UP',
];
const LOG = [
  SHUT,
  '2026/11/27 01:15:48.663638 ZEBRA: [MR3ZF-ATDBY] Intf eth-R2(2) has gone DOWN',
  '2026/11/27 01:13:26.360675 ZEBRA: [SBFM4-2P25V] MESSAGE: ZEBRA_INTERFACE_DOWN eth-R2 vrf default(0)',
  '2026/11/27 01:13:26.365045 BGP: [PXVXG-TFNNT] %ADJCHANGE: neighbor 10.0.0.2(R2) in vrf default Down Interface down',
  ...NO_SHUT,
  // R2's end set down: R1's eth-R2 keeps IFF_UP and loses RUNNING. A lost carrier, not a shutdown.
  '2026/11/27 01:13:33.022814 ZEBRA: [W6BZR-YZPAB] RTM_NEWLINK update for eth-R2(2) sl_type 0 master 0 flags 0x1003',
  '2026/11/27 01:13:33.022816 ZEBRA: [MR3ZF-ATDBY] Intf eth-R2(2) has gone DOWN',
  '2026/11/27 01:13:26.358028 ZEBRA: [RGWF1-EHXT1] netlink_interface_addr_dplane: RTM_DELADDR nsid 0 ifindex 2 flags 0x80:',
  // `ip link set eth-R2 down` outside FRR: IFF_UP clear as well (the runbook escalates it: no shutdown line).
  '2026/11/27 01:13:38.262198 ZEBRA: [W6BZR-YZPAB] RTM_NEWLINK update for eth-R2(2) sl_type 0 master 0 flags 0x1002',
];

describe('FRR lab watcher: AD000003 from zebra\'s kernel link update', () => {
  it('alerts only the updates with IFF_UP clear, naming the interface', () => {
    const alerts = LOG.flatMap((line) => detectFaults(line));
    expect(alerts.map((a) => [a.alert_def_id, a.search_name, a.fields, a.raw])).toEqual([
      ['AD000003', 'Interface admin down', { interface: 'eth-R2' }, SHUT],
      ['AD000003', 'Interface admin down', { interface: 'eth-R2' }, LOG.at(-1)],
    ]);
    expect(alerts[0]!.time).toBe(new Date(2026, 10, 27, 1, 15, 48).getTime() / 1000 + 0.663635);
  });

  it('reads IFF_UP from the flags, and says when an interface is up again', () => {
    expect(parseLinkUpdate(SHUT)).toMatchObject({ interface: 'eth-R2', adminUp: false });
    expect(parseLinkUpdate(NO_SHUT[0]!)).toMatchObject({ interface: 'eth-R2', adminUp: true });
    expect(parseLinkUpdate(NO_SHUT[1]!)).toBeUndefined();
    expect(NO_SHUT.map(interfaceCameUp)).toEqual(['eth-R2', undefined, 'eth-R2', undefined]);
    expect(interfaceCameUp(SHUT)).toBeUndefined();
  });

  it('posts a shut interface once until it is up again; another interface or router is another fault', () => {
    const throttle = createAlertThrottle();
    const posted = (lines: string[], router = 'R1') => lines.flatMap((l) => throttle.admit(router, detectFaults(l), parseAdjChange(l), l)).map((d) => d.fields.interface);
    expect(posted([SHUT, SHUT])).toEqual(['eth-R2']);
    expect(posted([SHUT.replace(/eth-R2\(2\)/, 'eth-R3(3)')])).toEqual(['eth-R3']);
    expect(posted([SHUT], 'R2')).toEqual(['eth-R2']);
    // A BGP session coming up over another link does not end the interface's fault; the interface coming up does.
    expect(posted(['2026/11/27 01:16:00.000000 BGP: [N9HHH-F8H1M] %ADJCHANGE: neighbor 10.0.0.6(R3) in vrf default Up', SHUT])).toEqual([]);
    expect(posted([...NO_SHUT, SHUT, SHUT])).toEqual(['eth-R2']);
  });

  it('posts what the relay accepts, and the FS reads the same interface from the line', async () => {
    const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000003');
    for (const detection of LOG.flatMap((line) => detectFaults(line))) {
      const alert = splunkAlertForDetection('R1', detection);
      expect(alertResultSchema.safeParse(alert.result).success).toBe(true);
      expect(alert.result).toMatchObject({ alert_def_id: 'AD000003', system: 'R1', device_platform: 'frr', interface: 'eth-R2', _raw: detection.raw });
      expect(extractFromLogLine(group.fs, detection.raw)?.vars).toEqual(detection.fields);
    }
    // And the FS matches none of the lines the detector lets pass.
    for (const line of LOG.filter((l) => detectFaults(l).length === 0)) expect(extractFromLogLine(group.fs, line), line).toBeUndefined();
  });
});
