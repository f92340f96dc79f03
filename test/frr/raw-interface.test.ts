import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadArtifactGroup } from '../../src/runbooks/load';
import { runGroupTestsOnFrr } from '../../harness/raw-tests/raw-test-frr';
import { extractFromLogLine } from '../../src/runbooks/variables';
import { DeviceService } from '../../src/adapters/devices/device-service';
import { loadInventory } from '../../src/adapters/devices/inventory';
import { applyFrrFault, resetFrrLab } from '../../harness/frr-lab/faults';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { startWatcher, type AlertEvent, type WatchEvent } from '../../harness/frr-lab/watcher';
import type { FaultSpec } from '../../src/runbooks/fault-spec';
import { repoRoot } from '../helpers/opencode';
import { GROUP_ON_FRR_TIMEOUT_MS, NO_FRR } from './frr-available';
import { frrLabForTest } from './lab-for-test';

/**
 * AD000003 (interface administratively down) on real FRR routers, on one lab for the whole file: the
 * watcher alerts it from zebra's own kernel link update (debug zebra kernel, topology.ts), only for
 * a shutdown and not for a carrier lost because the far end went away, and every FRR case of the group
 * passes through the SSH device server (npm run raw:test -- AD000003 --frr).
 */

/**
 * Builds the fault with a watcher on every router's log; resolves once `until` has seen what it needs
 * (each alert and adjacency event is handed to it), with every alert seen by then. Resets the lab after.
 */
async function watchFault(lab: FrrLab, fault: FaultSpec, until: (seen: { alerts: AlertEvent[]; events: WatchEvent[] }) => boolean) {
  const seen = { alerts: [] as AlertEvent[], events: [] as WatchEvent[] };
  let done = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const check = () => until(seen) && done();
  const watcher = startWatcher({ routers: lab.routers, onAlert: (a) => (seen.alerts.push(a), check()), onEvent: (e) => (seen.events.push(e), check()) });
  try {
    expect(await applyFrrFault(lab, fault)).toBeUndefined();
    await finished;
    return seen.alerts;
  } finally {
    watcher.close();
    await resetFrrLab(lab);
  }
}

const fromR1 = (a: AlertEvent) => a.router === 'R1' && a.detection.alert_def_id === 'AD000003';

describe.skipIf(NO_FRR)('AD000003 interface administratively down on real FRR routers', () => {
  it('alerts a shutdown from zebra\'s link update, not a lost carrier, then passes every FRR case of the group', { timeout: GROUP_ON_FRR_TIMEOUT_MS }, async () => {
    const lab = await frrLabForTest();
    const service = new DeviceService(await loadInventory(lab.inventoryPath));
    onTestFinished(() => service.close());
    const group = await loadArtifactGroup(join(repoRoot, 'intelligence-artifacts'), 'AD000003');

    // `shutdown` on R1's eth-R2: one alert, naming the interface; the FS reads the same from the line.
    const shut = await watchFault(lab, { fault: 'interface_admin_down', device: 'R1', interface: 'eth-R2' }, (s) => s.alerts.some(fromR1));
    const alert = shut.find(fromR1)!;
    expect(alert.detection.fields).toEqual({ interface: 'eth-R2' });
    expect(alert.detection.raw).toMatch(/ ZEBRA: (\[[\w-]+\] )?RTM_NEWLINK update for eth-R2\(\d+\) sl_type 0 master 0 flags 0x[0-9a-f]*[02468ace]$/);
    expect(extractFromLogLine(group.fs, alert.detection.raw)?.vars).toEqual({ interface: 'eth-R2' });

    // R2's end goes away: R1 loses the carrier but keeps IFF_UP. R1's BGP session drops over the link
    // (its adjacency line follows zebra's link update in the same log), and by then R1 has alerted nothing.
    const lost = await watchFault(lab, { fault: 'interface_link_down', device: 'R1', interface: 'eth-R2' }, (s) =>
      s.events.some((e) => e.router === 'R1' && e.change.state === 'Down' && e.change.neighbor === '10.0.0.2'),
    );
    expect(lost.filter(fromR1)).toEqual([]);

    const results = await runGroupTestsOnFrr(group, lab, service);
    expect(results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.failures.join('; ')}`)).toEqual([]);
    expect(results.map((r) => r.result.outcome)).toEqual(['resolved', 'escalated', 'escalated', 'failed', 'escalated', 'escalated', 'resolved', 'escalated']);
    // The operator was shown FRR's interface name, and when it went down from the interface's own counters.
    expect(results[0]!.approvals[0]!.commands).toEqual(['interface eth-R2', 'no shutdown', 'end']);
    expect(results[0]!.approvals[0]!.summary).toMatch(/Bring eth-R2 on R1 back into service with "no shutdown"; it went down at \d{4}\/\d{2}\/\d{2} [\d:.]+\./);
  });
});
