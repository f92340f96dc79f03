/**
 * npm run bench:frr: figures for the real-router tier, measured in one run on this machine (root, FRR).
 *   fault → alert        a `neighbor … shutdown` until the watcher has the alert in hand
 *   approval → up        the approved change over SSH until the peer reports Established
 *   command latency      show over the device server's reused SSH session vs a one-shot `vtysh -c` (ratio)
 *   memory per router    RSS of zebra + staticd + bgpd
 *   confirmed apply      approval → confirmed by the post-check, a failed change → rolled back, and the same
 *                        for a plan over both routers (scripts/bench/frr-confirm.ts, scripts/bench/frr-plan.ts)
 * Printed, not asserted: speed belongs here, not in tests.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceService } from '../src/adapters/devices/device-service';
import { loadInventory } from '../src/adapters/devices/inventory';
import { waitForSession } from '../harness/frr-lab/bgp-state';
import { frrLabUnavailable, run } from '../harness/frr-lab/host';
import { startFrrLab } from '../harness/frr-lab/lab';
import { startWatcher } from '../harness/frr-lab/watcher';
import { benchConfirmedApply } from './bench/frr-confirm';

const missing = frrLabUnavailable();
if (missing) {
  console.error(`bench:frr: ${missing}`);
  process.exit(2);
}
const ROUNDS = 5;
const base = mkdtempSync(join(tmpdir(), 'fault-relay-bench-frr-'));
const lab = await startFrrLab({ dir: join(base, 'lab'), routers: 2 });
const service = new DeviceService(await loadInventory(lab.inventoryPath));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  const faultToAlert: number[] = [];
  const approvalToUp: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let seen: (() => void) | undefined;
    const watcher = startWatcher({ routers: lab.routers, onEvent: (e) => e.router === 'R1' && e.change.state === 'Down' && seen?.() });
    const alerted = new Promise<void>((r) => (seen = r));
    const t0 = performance.now();
    await lab.vtysh('R1', 'configure terminal', 'router bgp 65001', 'neighbor 10.0.0.2 shutdown', 'end');
    await alerted;
    faultToAlert.push(performance.now() - t0);
    watcher.close();
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', (s) => s.startsWith('Idle'));
    const t1 = performance.now();
    await service.config('R1', ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown', 'end']);
    await waitForSession(lab.vtysh, 'R2', '10.0.0.1', 'Established');
    approvalToUp.push(performance.now() - t1);
  }

  const N = 50;
  await service.exec('R1', 'show ip bgp summary'); // the session is opened once, then reused
  let t = performance.now();
  for (let i = 0; i < N; i++) await service.exec('R1', 'show ip bgp summary');
  const ssh = (performance.now() - t) / N;
  t = performance.now();
  for (let i = 0; i < 10; i++) await run('/usr/bin/vtysh', ['-N', lab.routers[0]!.namespace, '-c', 'show ip bgp summary']);
  const oneShot = (performance.now() - t) / 10;

  const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const perRouter = lab.routers.map((r) =>
    ['zebra', 'staticd', 'bgpd'].reduce((sum, d) => sum + rss(Number(readFileSync(`/var/run/frr/${r.namespace}/${d}.pid`, 'utf8'))), 0),
  );

  console.log(`FRR ${(await lab.vtysh('R1', 'show version')).split('\n')[0]}, ${ROUNDS} rounds, 2 routers`);
  console.log(`fault → alert (log line read by the watcher)   median ${median(faultToAlert).toFixed(0)} ms  (all: ${faultToAlert.map((x) => x.toFixed(0)).join(', ')})`);
  console.log(`approved change → peer Established             median ${median(approvalToUp).toFixed(0)} ms  (all: ${approvalToUp.map((x) => x.toFixed(0)).join(', ')})`);
  console.log(`show over the reused SSH session               ${ssh.toFixed(2)} ms/command`);
  console.log(`one-shot vtysh -c                              ${oneShot.toFixed(1)} ms/command  → the SSH session is ${(oneShot / ssh).toFixed(0)}× faster`);
  console.log(`memory per router (zebra+staticd+bgpd RSS)     ${perRouter.map((m) => `${m.toFixed(1)} MiB`).join(', ')}`);
  for (const line of await benchConfirmedApply(lab, service, process.cwd())) console.log(line);
} finally {
  await service.close();
  await lab.stop();
  rmSync(base, { recursive: true, force: true });
}
