import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROLLBACK_GRACE_S } from '../../src/core/changes/device-contract';
import { waitForSession } from '../../harness/frr-lab/bgp-state';
import { NO_FRR } from './frr-available';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { frrLabForFile } from './lab-for-test';
import { journaledFor, until, vtyshWaitsOn } from './plan-crash-helpers';
import { alive, api, appliedThenKilled, planApproved, runningBoth, serverFilesLeft, signalDaemon, untilGone, untilIncident, type Incident, type Killed } from './relay-killed-helpers';

/**
 * `npm run relay` with DEVICE_INVENTORY, killed -9 with a provisional change pending on real FRR.
 * By default (DEVICE_SERVER_MODE=detached) the device server is a process of its own in its own
 * session: it outlives the relay and its process group, rolls the change back at the deadline by
 * itself, and exits once nothing is pending and no relay is attached; a relay started again within
 * the window attaches to it. In-process, the deadline dies with the relay and the next start puts
 * the router back from the journal before it listens. A plan killed between its two routers is put
 * back on the one it reached. One lab for every case.
 */
/**
 * The restarted relay listens only once its device server has put R1 back from the journal and read
 * it back; the outcome is journaled, and the incident says so (polled: nothing is pushed to a test).
 */
async function restartedAndRolledBack(k: Killed) {
  const restartedAt = new Date().toISOString();
  const second = await k.relay();
  expect(await k.lab.vtysh('R1', 'show running-config')).toBe(k.before);
  expect(existsSync(k.entryFile)).toBe(false);
  expect(JSON.parse(readFileSync(k.outcomeFile, 'utf8'))).toMatchObject({
    status: { change_id: k.change.change_id, device: 'R1', state: 'rolled_back', reason: 'server_restart', detail: expect.stringContaining('matches the one before') },
  });
  const settled = await untilIncident(second, k.id, (i) => i.change?.state !== 'pending', 'settled');
  expect(settled.change).toMatchObject({ change_id: k.change.change_id, state: 'rolled_back', ended_by: 'server_restart', detail: expect.stringContaining('matches the one before') });
  expect(settled.timeline.filter((e) => e.type === 'device.change_rolled_back').map((e) => e.message)).toEqual([
    expect.stringMatching(/^Change on R1 rolled back: the device tool server restarted with the change unconfirmed/),
  ]);
  // A person's late confirm is refused: the change is gone for good.
  const late = await api(`${second.url}/incidents/${k.id}/confirm`, { method: 'POST', token: k.ana.token, body: { change_id: k.change.change_id } });
  expect(late).toMatchObject({ status: 409, json: { error: { code: 'not_pending' } } });
  await waitForSession(k.lab.vtysh, 'R1', '10.0.0.2', 'Established');
  // The relay took the outcome from its device server at start: no post-check ran on a router already put back.
  const after = await api<Incident>(`${second.url}/sessions/${k.id}`);
  expect(after.json.timeline.filter((e) => e.type === 'device.exec' && e.at >= restartedAt)).toEqual([]);
  await second.stop('SIGTERM');
}


/**
 * The confirm window of the case that waits for the deadline: the relay is killed and the change found
 * still pending within seconds of the apply, and the case idles through the rest of it.
 */
const WINDOW_S = 20;

/** One lab for every case, back to its clean state before each. */
let lab: FrrLab;
frrLabForFile({ name: 'relay-killed', resetBeforeEach: true }, (shared) => void (lab = shared.lab));

describe.skipIf(NO_FRR)('the relay killed -9 with a provisional change pending (real FRR, npm run relay)', () => {
  it('detached (the default), the relay\'s whole process group killed and nothing restarted: its device server puts R1 back at the deadline by itself, then exits', { timeout: 240_000 }, async () => {
    const k = await appliedThenKilled({ confirmWithinS: WINDOW_S, mode: 'detached', killGroup: true, lab });
    const server = k.deviceServer!;
    // The kill of the relay's group did not reach it; its token is on no command line and in no log.
    expect(alive(server.pid)).toBe(true);
    expect(readFileSync(`/proc/${server.pid}/cmdline`, 'utf8')).not.toContain(server.token);
    const environ = readFileSync(`/proc/${server.pid}/environ`, 'utf8');
    for (const secret of ['splunk-secret', 'runtime-pw', 'relay-killed-tools-token', server.token]) expect(environ).not.toContain(secret);

    await untilGone(server.pid);
    // Read back from the router: exactly as before the change, with no relay running.
    expect(await k.lab.vtysh('R1', 'show running-config')).toBe(k.before);
    const outcome = JSON.parse(readFileSync(k.outcomeFile, 'utf8')) as { status: Record<string, string>; at: string };
    expect(outcome.status).toMatchObject({ change_id: k.change.change_id, state: 'rolled_back', reason: 'deadline', detail: expect.stringContaining('matches the one before') });
    expect(Date.parse(outcome.at)).toBeGreaterThanOrEqual(Date.parse(k.change.deadline));
    // Read back by the deadline plus the grace the device server promises, from the journal's own times.
    expect(Date.parse(outcome.at)).toBeLessThanOrEqual(Date.parse(k.change.deadline) + ROLLBACK_GRACE_S * 1000);
    expect(existsSync(k.entryFile)).toBe(false);
    // Nothing left running or naming it.
    expect(serverFilesLeft(k.journal)).toEqual([]);
    expect(readFileSync(join(k.logDir, 'device-server.log'), 'utf8')).not.toContain(server.token);
    await waitForSession(k.lab.vtysh, 'R1', '10.0.0.2', 'Established');
  });

  it('detached, restarted within the window: the new relay attaches to the same device server, a person confirms the change, and the server exits once the relay stops', { timeout: 240_000 }, async () => {
    const k = await appliedThenKilled({ confirmWithinS: 3600, mode: 'detached', lab });
    const server = k.deviceServer!;
    const second = await k.relay();
    expect(second.output.join('\n')).toContain('already running (it outlived the last relay): attached to it');
    expect(JSON.parse(readFileSync(join(k.journal, 'server.json'), 'utf8'))).toMatchObject({ pid: server.pid });
    const pending = await untilIncident(second, k.id, (i) => i.change?.state === 'pending', 'pending');
    expect(pending.change?.change_id).toBe(k.change.change_id);
    const confirmed = await api<{ status: string }>(`${second.url}/incidents/${k.id}/confirm`, { method: 'POST', token: k.ana.token, body: { change_id: k.change.change_id } });
    expect(confirmed).toMatchObject({ status: 200, json: { status: 'confirmed' } });
    expect(await k.lab.vtysh('R1', 'show running-config')).toContain('neighbor 10.0.0.2 shutdown');
    await second.stop('SIGTERM');
    await untilGone(server.pid);
    expect(serverFilesLeft(k.journal)).toEqual([]);
  });

  it('in-process, restarted at once, long before the deadline: the relay rolls the change back from its journal before it listens', { timeout: 240_000 }, async () => {
    await restartedAndRolledBack(await appliedThenKilled({ confirmWithinS: 3600, mode: 'in-process', lab }));
  });

  it('in-process, killed between the two routers\' applies of a plan: restarted, R1 is put back from the journal and read back, R2 was never changed, and the incident says the plan never went on every device', { timeout: 240_000 }, async () => {
    const k = await planApproved({ confirmWithinS: 3600, mode: 'in-process', lab });
    // R2's bgpd stopped: its change waits on reading R2's configuration, after R1's change went on.
    signalDaemon(lab, 'R2', 'bgpd', 'SIGSTOP');
    let r1 = '';
    try {
      void k.apply().catch(() => undefined);
      // R1 took its lines; R2 is named under the relay's own change id before its lines left.
      const between = await untilIncident(k.first, k.id, (i) => (i.plan_changes ?? []).length === 2 && !i.plan_changes![0]!.unanswered, 'changed on R1, R2 under way');
      expect(between.plan_changes!.map((c) => [c.device, c.state, c.unanswered ?? false])).toEqual([['R1', 'pending', false], ['R2', 'pending', true]]);
      r1 = between.plan_changes![0]!.change_id;
      expect(await lab.vtysh('R1', 'show running-config')).toContain('neighbor 10.0.0.2 shutdown');
      await k.first.killGroup();
    } finally {
      signalDaemon(lab, 'R2', 'bgpd', 'SIGCONT');
    }
    const second = await k.relay();
    const settled = await untilIncident(second, k.id, (i) => (i.plan_changes ?? []).every((c) => c.state !== 'pending'), 'settled');
    // R2's read never ended, so its server never journaled it: the new one has no record of it, and R2 is not changed.
    expect(settled.plan_changes!.map((c) => [c.device, c.state, c.ended_by])).toEqual([['R1', 'rolled_back', 'server_restart'], ['R2', 'not_applied', null]]);
    expect(settled.plan_changes![0]!.detail).toContain('matches the one before');
    expect(settled.timeline.filter((e) => e.type === 'plan.rolled_back').map((e) => e.message)).toEqual([
      expect.stringMatching(/rolled back \(the relay stopped before the plan was applied on every device \(1 of 2 changed\)\): R1 rolled back: the device tool server restarted .*; R2 not changed \(the device tool server has no record of change chg-\w+: none of its lines was sent\)$/),
    ]);
    expect(settled.timeline.map((e) => e.type)).not.toContain('plan.confirmed');
    // Read back from both routers: exactly as before the plan.
    expect(await runningBoth(lab)).toEqual(k.before);
    expect(JSON.parse(readFileSync(join(k.journal, `outcome-${r1}.json`), 'utf8'))).toMatchObject({ status: { device: 'R1', state: 'rolled_back', detail: expect.stringContaining('matches the one before') } });
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');
    await second.stop('SIGTERM');
  });

  it('detached, killed while R2\'s journaled change waits on R2: the same device server finishes R2 with nobody to answer; restarted, the relay asks it about R2 by the id it gave it, puts back R1 and R2, each read back, and writes the plan rolled back once after both', { timeout: 240_000 }, async () => {
    const k = await planApproved({ confirmWithinS: 3600, mode: 'detached', lab });
    const stopped = new Set<string>();
    const stop = (d: string, how: 'SIGSTOP' | 'SIGCONT') => (signalDaemon(lab, 'R2', d, how), how === 'SIGSTOP' ? stopped.add(d) : stopped.delete(d));
    let r2 = { change_id: '' };
    try {
      // As in the device server's test: R2's read ends (staticd let go with bgpd stopped), its change is journaled, its first line waits on bgpd.
      stop('staticd', 'SIGSTOP');
      void k.apply().catch(() => undefined);
      await until(() => vtyshWaitsOn(lab, 'R2', 'staticd'));
      stop('bgpd', 'SIGSTOP');
      stop('staticd', 'SIGCONT');
      r2 = await until(() => journaledFor(k.journal, 'R2'));
      await k.first.killGroup();
    } finally {
      for (const d of stopped) signalDaemon(lab, 'R2', d, 'SIGCONT');
    }
    // With no relay left to answer, the server sends R2's lines: they are on R2.
    const description = 'neighbor 10.0.0.1 description plan-R1';
    await until(async () => (await lab.vtysh('R2', 'show running-config')).includes(description));
    const second = await k.relay();
    const settled = await untilIncident(second, k.id, (i) => i.timeline.some((e) => e.type === 'plan.rolled_back'), 'rolled back');
    expect(settled.plan_changes!.map((c) => [c.device, c.change_id === r2.change_id, c.state, c.ended_by])).toEqual([['R1', false, 'rolled_back', 'requested'], ['R2', true, 'rolled_back', 'requested']]);
    for (const c of settled.plan_changes!) expect(c.detail).toContain('matches the one before');
    expect(settled.timeline.filter((e) => ['device.change_rolled_back', 'plan.rolled_back'].includes(e.type)).map((e) => e.message)).toEqual([
      expect.stringMatching(/^Change on R1 rolled back/),
      expect.stringMatching(/^Change on R2 rolled back/),
      expect.stringMatching(/^Plan \S+ rolled back \(the relay stopped before the plan was applied on every device \(1 of 2 changed\)\): R1 rolled back: requested; R2 rolled back: requested$/),
    ]);
    expect(JSON.parse(readFileSync(join(k.journal, `outcome-${r2.change_id}.json`), 'utf8'))).toMatchObject({ status: { device: 'R2', state: 'rolled_back', detail: expect.stringContaining('matches the one before') } });
    expect(await runningBoth(lab)).toEqual(k.before);
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');
    await second.stop('SIGTERM');
  });
});
