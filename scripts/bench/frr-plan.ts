/**
 * bench:frr's plan figures, one repetition each on the same lab and device service as the single-device
 * ones, with the same steps the relay's plan apply takes (src/core/changes/plan-apply.ts): every device
 * takes its lines provisionally in order, the post-check runs, then every device is confirmed, or put
 * back and read back by the device service.
 *   approval → plan confirmed on R1 and R2    R1's repair and a second line on R2, post-check polled until it passes
 *   failed plan → rolled back on both          a plan that repairs nothing, post-check fails once, both put back
 */
import type { DeviceService } from '../../src/adapters/devices/device-service';
import { waitForSession } from '../../harness/frr-lab/bgp-state';
import type { FrrLab } from '../../harness/frr-lab/lab';

const WITHIN_S = 120;
type Step = { device: string; lines: string[] };

async function applyAll(service: DeviceService, steps: Step[]) {
  const changes: { device: string; id: string }[] = [];
  for (const s of steps) changes.push({ device: s.device, id: (await service.changes.apply(s.device, s.lines, WITHIN_S)).change.change_id });
  return changes;
}

/** One repetition of each plan figure, in ms; R1's neighbor is shut before each and the lab left as it was. */
export async function planRep(lab: FrrLab, service: DeviceService, postCheck: (attempts: number) => Promise<boolean>, shut: () => Promise<unknown>): Promise<{ confirmed: number; rolledBack: number }> {
  const idle = () => waitForSession(lab.vtysh, 'R1', '10.0.0.2', (s) => s.startsWith('Idle'));
  await shut();
  await idle();
  let t = performance.now();
  const good = await applyAll(service, [
    { device: 'R1', lines: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] },
    { device: 'R2', lines: ['router bgp 65002', 'neighbor 10.0.0.1 description bench-plan'] },
  ]);
  if (!(await postCheck(10_000))) throw new Error('the plan\'s post-check never passed');
  for (const c of good) await service.changes.confirm(c.device, c.id);
  const confirmed = performance.now() - t;
  await lab.vtysh('R2', 'configure terminal', 'router bgp 65002', 'no neighbor 10.0.0.1 description', 'end');

  // A plan that repairs nothing: the post-check fails once, every device is put back and read back.
  await shut();
  await idle();
  t = performance.now();
  const bad = await applyAll(service, [
    { device: 'R1', lines: ['router bgp 65001', 'neighbor 10.0.0.2 description bench-no-repair'] },
    { device: 'R2', lines: ['router bgp 65002', 'neighbor 10.0.0.1 description bench-no-repair'] },
  ]);
  if (await postCheck(1)) throw new Error('the failing plan passed its post-check');
  for (const c of bad) {
    const back = await service.changes.rollback(c.device, c.id, 'post-check failed');
    if (back.state !== 'rolled_back') throw new Error(`rollback on ${c.device} ended ${back.state}: ${back.detail ?? ''}`);
  }
  const rolledBack = performance.now() - t;
  await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'end');
  return { confirmed, rolledBack };
}
