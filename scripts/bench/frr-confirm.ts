/**
 * bench:frr's confirmed-apply figures, on the same lab and device service, each against the floor a
 * router cannot beat without a restart: BGP Established again after `clear ip bgp` (no config change).
 *   approval → confirmed by post-check   provisional apply, the RAW's post-check polled until it passes, confirm
 *   failed change → rolled back          provisional apply of a change the post-check fails, rollback, read back
 *   the same two for a plan over R1 and R2 (scripts/bench/frr-plan.ts), in the same repetitions
 */
import { join } from 'node:path';
import { loadArtifactGroup } from '../../src/runbooks/load';
import type { DeviceService } from '../../src/adapters/devices/device-service';
import { waitForSession } from '../../harness/frr-lab/bgp-state';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { planPostCheck, type PostCheckPlan } from '../../src/core/changes/post-check';
import { planRep } from './frr-plan';

const REPS = 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (xs: number[]) => `p50 ${median(xs).toFixed(0)} ms  (all: ${xs.map((x) => x.toFixed(0)).join(', ')})`;

export async function benchConfirmedApply(lab: FrrLab, service: DeviceService, projectDir: string): Promise<string[]> {
  const { raw } = await loadArtifactGroup(join(projectDir, 'intelligence-artifacts'), 'AD000002');
  const plan = planPostCheck(raw, { device_hostname: 'R1', neighbor_ip: '10.0.0.2', device_platform: 'frr' }) as PostCheckPlan;
  const shut = () => lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'neighbor 10.0.0.2 shutdown', 'end');
  // The relay's post-check with its waits taken out: poll the RAW's revalidate command until it passes.
  const postCheck = async (attempts: number) => {
    for (let i = 0; i < attempts; i++) if (plan.check(await service.exec('R1', plan.command)).ok) return true;
    return false;
  };

  const floor: number[] = [];
  const confirmed: number[] = [];
  const rolledBack: number[] = [];
  const planConfirmed: number[] = [];
  const planRolledBack: number[] = [];
  for (let i = 0; i < REPS; i++) {
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');
    let t = performance.now();
    await lab.vtysh('R1', 'clear ip bgp 10.0.0.2');
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');
    floor.push(performance.now() - t);

    await shut();
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', (s) => s.startsWith('Idle'));
    t = performance.now();
    const ok = await service.changes.apply('R1', ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'], 120);
    if (!(await postCheck(10_000))) throw new Error('the post-check never passed');
    await service.changes.confirm('R1', ok.change.change_id);
    confirmed.push(performance.now() - t);

    // A change that does not repair the fault: the post-check fails once, the change is put back and read back.
    await shut();
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', (s) => s.startsWith('Idle'));
    t = performance.now();
    const bad = await service.changes.apply('R1', ['router bgp 65001', 'neighbor 10.0.0.2 description bench-no-repair'], 120);
    if (await postCheck(1)) throw new Error('the failing change passed its post-check');
    const back = await service.changes.rollback('R1', bad.change.change_id, 'post-check failed');
    if (back.state !== 'rolled_back') throw new Error(`rollback ended ${back.state}: ${back.detail ?? ''}`);
    rolledBack.push(performance.now() - t);
    await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'end');

    const plan = await planRep(lab, service, postCheck, shut);
    planConfirmed.push(plan.confirmed);
    planRolledBack.push(plan.rolledBack);
  }
  const f = median(floor);
  return [
    `floor: BGP Established after clear ip bgp        ${ms(floor)}`,
    `approval → change confirmed by the post-check    ${ms(confirmed)}  → ${(median(confirmed) / f).toFixed(2)}× the floor`,
    `failed change → rolled back and read back        ${ms(rolledBack)}  → ${(median(rolledBack) / f).toFixed(2)}× the floor`,
    `approval → plan confirmed on R1 and R2           ${ms(planConfirmed)}  → ${(median(planConfirmed) / f).toFixed(2)}× the floor`,
    `failed plan → rolled back and read back on both  ${ms(planRolledBack)}  → ${(median(planRolledBack) / f).toFixed(2)}× the floor`,
  ];
}
