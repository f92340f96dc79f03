import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { runGroupTestsOnFrr } from '../../harness/raw-tests/raw-test-frr';
import { extractFromLogLine } from '../../src/runbooks/variables';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory } from '../../src/adapters/devices/inventory';
import { parseAdjChange } from '../../harness/frr-lab/adjchange';
import { createAlertThrottle, detectFaults } from '../../harness/frr-lab/detectors';
import { applyFrrFault, resetFrrLab } from '../../harness/frr-lab/faults';
import { startWatcher, type AlertEvent } from '../../harness/frr-lab/watcher';
import { repoRoot } from '../helpers/opencode';
import { GROUP_ON_FRR_TIMEOUT_MS, NO_FRR } from './frr-available';
import { frrLabForTest } from './lab-for-test';

/**
 * AD000006 (neighbor remote-as not the peer's AS) on real FRR routers, on one lab for the whole file: the
 * watcher alerts it from the rejecting router's own notification line; the lines FRR logged meanwhile (the
 * rejection repeated on every connect retry, the peer's "received") make one alert, of the rejecting
 * router; and every FRR case of the group passes (npm run raw:test -- AD000006 --frr).
 */
describe.skipIf(NO_FRR)('AD000006 BGP neighbor in the wrong AS on real FRR routers', () => {
  it('alerts the rejected OPEN with the AS the peer announced, then passes every FRR case of the group', { timeout: GROUP_ON_FRR_TIMEOUT_MS }, async () => {
    const lab = await frrLabForTest();
    const service = new DeviceService(await loadInventory(lab.inventoryPath));
    onTestFinished(() => service.close());
    const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000006');

    const r1 = lab.routers.find((r) => r.name === 'R1')!;
    const r2 = lab.routers.find((r) => r.name === 'R2')!;
    const from = new Map(lab.routers.map((r) => [r.name, statSync(r.logFile).size]));
    const newLines = (r: typeof r1) => readFileSync(r.logFile, 'utf8').slice(from.get(r.name)).split('\n').filter(Boolean);
    let first = (_a: AlertEvent) => {};
    const alerted = new Promise<AlertEvent>((resolve) => (first = resolve));
    const watcher = startWatcher({ routers: lab.routers, onAlert: (a) => a.detection.alert_def_id === 'AD000006' && first(a) });
    let r1Lines: string[] = [];
    let r2Lines: string[] = [];
    try {
      expect(await applyFrrFault(lab, { fault: 'bgp_remote_as_mismatch', device: 'R1', neighbor: '10.0.0.2' })).toBeUndefined();
      const alert = await alerted;
      // R1 rejects R2's OPEN (R2 is AS 65002; R1 was configured 65020). FRR 8.4 logs only the first hex
      // digit of the data; the AS is the lab's peering record for R1's neighbor.
      expect(alert.router).toBe('R1');
      expect(alert.detection.fields).toEqual({ neighbor_ip: '10.0.0.2', peer_as: '65002' });
      expect(alert.detection.raw).toMatch(/ BGP: (\[[\w-]+\] )?%NOTIFICATION(\(Hard Reset\))?: sent to neighbor 10\.0\.0\.2 2\/2 \(OPEN Message Error\/Bad Peer AS\) 2 bytes f$/);
      expect(extractFromLogLine(group.fs, alert.detection.raw)?.vars).toEqual({ neighbor_ip: '10.0.0.2' });
      // FRR repeats the rejection every connect retry, and R2 logs it as received: poll the logs (bounded)
      // until both show, then put those lines through what the watcher runs on each line.
      const deadline = Date.now() + 30_000;
      const rejected = (l: string) => / sent to neighbor 10\.0\.0\.2 2\/2 /.test(l);
      while ((r1Lines = newLines(r1)).filter(rejected).length < 2 || !(r2Lines = newLines(r2)).some((l) => / received from neighbor 10\.0\.0\.1 2\/2 /.test(l))) {
        if (Date.now() > deadline) throw new Error(`no repeated rejection within 30 s:\n${[...r1Lines, ...r2Lines].join('\n')}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      watcher.close();
      await resetFrrLab(lab);
    }
    const throttle = createAlertThrottle();
    const posted = (router: string, lines: string[]) => lines.flatMap((l) => throttle.admit(router, detectFaults(l, { peerAs: () => 65002 }), parseAdjChange(l), l));
    expect(posted('R1', r1Lines).map((d) => d.alert_def_id)).toEqual(['AD000006']);
    expect(posted('R2', r2Lines)).toEqual([]);

    const results = await runGroupTestsOnFrr(group, lab, service);
    expect(results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.failures.join('; ')}`)).toEqual([]);
    expect(results.map((r) => r.result.outcome)).toEqual(['resolved', 'escalated', 'failed', 'escalated', 'escalated', 'escalated', 'resolved', 'escalated']);
    // The line the operator approved is exact: the AS the peer announced, from the alert.
    expect(results[0]!.approvals[0]!.commands).toEqual(['router bgp 65001', 'neighbor 10.0.0.2 remote-as 65002', 'end']);
    // And the operator saw the AS in the OPEN R1 rejected, from FRR's dump of it (0xFDEA = 65002).
    expect(results[0]!.approvals[0]!.summary).toContain('from 65020 to 65002, the AS the peer announces (its rejected OPEN carried AS FDEA in hex)');
  });
});
