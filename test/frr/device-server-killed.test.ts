import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROLLBACK_GRACE_S } from '../../src/core/changes/device-contract';
import { waitForSession } from '../../harness/frr-lab/bgp-state';
import { NO_FRR } from './frr-available';
import { alive, api, appliedPending, planApproved, planPending, runningBoth, serverFilesLeft, signalDaemon, supervisedServer, untilGone, untilIncident } from './relay-killed-helpers';
import type { FrrLab } from '../../harness/frr-lab/lab';
import { frrLabForFile } from './lab-for-test';
import type { RelayProcess } from '../helpers/relay-process';
import { SupervisedServerInfo, supervisedFiles } from '../../src/adapters/devices/supervised';
import { journaledFor, until, vtyshWaitsOn } from './plan-crash-helpers';

/**
 * The detached device server killed -9 while a relay is attached and a provisional change on real FRR
 * waits for its confirm: the relay sees its `GET /attach` end and starts a new server on the same
 * journal, which keeps the change's deadline (every change of a plan alike). The relay stays up
 * throughout. One lab for every case.
 */
type Health = { status: string; reasons?: string[]; warnings: string[] };

/** Asks /health until it says what is wanted; nothing is pushed to a test, so it polls, bounded. */
async function untilHealth(relay: RelayProcess, ok: (h: Health) => boolean, what: string, timeoutMs = 150_000): Promise<Health> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await api<Health>(`${relay.url}/health`);
    if (ok(json)) return json;
    if (Date.now() > until) throw new Error(`/health did not say ${what} within ${timeoutMs / 1000} s: ${JSON.stringify(json)}\n${relay.output.slice(-15).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The server the state folder names once it is another than `pid` (the relay started it again). */
async function untilReplaced(journal: string, pid: number, timeoutMs = 150_000): Promise<SupervisedServerInfo> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const info = SupervisedServerInfo.parse(JSON.parse(readFileSync(supervisedFiles(journal).info, 'utf8')));
      if (info.pid !== pid) return info;
    } catch {
      // between the old server's files and the new one's
    }
    if (Date.now() > until) throw new Error(`no device server replaced pid ${pid} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const restartNote = (from: number, to: number) => new RegExp(`^The device tool server went away at \\S+ \\(process ${from} is gone .*\\) and was started again at \\S+ \\(pid ${from} → ${to}\\)`);

/**
 * The confirm window of the cases that wait for the deadline: the server started in place of the killed
 * one is up within about 10 s of the apply on a loaded machine, well inside it, and each such case
 * idles through it.
 */
const WINDOW_S = 25;

/** One lab for every case, back to its clean state before each. */
let lab: FrrLab;
frrLabForFile({ name: 'server-killed', resetBeforeEach: true }, (shared) => void (lab = shared.lab));

describe.skipIf(NO_FRR)('the detached device server killed -9 while a relay is attached (real FRR, npm run relay)', () => {
  it('the relay starts it again at once; the new server keeps the change until its deadline and rolls it back, read back, within the promised grace after it', { timeout: 240_000 }, async () => {
    const k = await appliedPending({ confirmWithinS: WINDOW_S, mode: 'detached', lab });
    const killed = k.deviceServer!;
    process.kill(killed.pid, 'SIGKILL');
    await untilGone(killed.pid);

    const next = await untilReplaced(k.journal, killed.pid);
    const replacement = supervisedServer(k.journal);
    expect(replacement.pid).toBe(next.pid);
    const health = await untilHealth(k.first, (h) => h.warnings.some((w) => w.includes('was started again')), 'the restart');
    expect(health.status).toBe('ok');
    expect(health.warnings).toContainEqual(expect.stringMatching(restartNote(killed.pid, next.pid)));
    // The kill -9 left its lock behind; the new server took it over (its pid was dead).
    expect(readFileSync(join(k.logDir, 'device-server.log'), 'utf8')).toMatch(new RegExp(`"stale_pid":${killed.pid}.*taken over`));

    // Neither the relay nor a person confirms: the new server rolls back at the deadline, not at its start.
    const settled = await untilIncident(k.first, k.id, (i) => i.change?.state !== 'pending', 'settled', 120_000);
    expect(settled.change).toMatchObject({ change_id: k.change.change_id, state: 'rolled_back', ended_by: 'deadline' });
    expect(await k.lab.vtysh('R1', 'show running-config')).toBe(k.before);
    const entry = { deadline: k.change.deadline };
    const outcome = JSON.parse(readFileSync(k.outcomeFile, 'utf8')) as { status: Record<string, string>; at: string };
    expect(outcome.status).toMatchObject({ change_id: k.change.change_id, state: 'rolled_back', reason: 'deadline', detail: expect.stringContaining('matches the one before') });
    // From the journal's own timestamps: put back and read back by the deadline plus the grace the product promises.
    expect(Date.parse(outcome.at)).toBeGreaterThanOrEqual(Date.parse(entry.deadline));
    expect(Date.parse(outcome.at)).toBeLessThanOrEqual(Date.parse(entry.deadline) + ROLLBACK_GRACE_S * 1000);
    await waitForSession(k.lab.vtysh, 'R1', '10.0.0.2', 'Established');

    await k.first.stop('SIGTERM');
    await untilGone(replacement.pid);
    expect(serverFilesLeft(k.journal)).toEqual([]);
  });

  it('after a kill the change is still pending on the new server (kept, not rolled back at its start): a person confirms it through the same relay', { timeout: 300_000 }, async () => {
    const k = await appliedPending({ confirmWithinS: 3600, mode: 'detached', lab });
    const killed = k.deviceServer!;
    const killedAt = Date.now();
    process.kill(killed.pid, 'SIGKILL');
    const next = await untilReplaced(k.journal, killed.pid);
    const replacement = supervisedServer(k.journal);
    expect(next.pid).toBe(replacement.pid);
    await untilHealth(k.first, (h) => h.warnings.some((w) => w.includes('was started again')), 'the restart');
    expect(readFileSync(join(k.logDir, 'device-server.log'), 'utf8')).toContain('a pending change from the journal is kept until its deadline');

    expect(await k.lab.vtysh('R1', 'show running-config')).toContain('neighbor 10.0.0.2 shutdown');
    const confirmed = await api<{ status: string }>(`${k.first.url}/incidents/${k.id}/confirm`, { method: 'POST', token: k.ana.token, body: { change_id: k.change.change_id } });
    expect(confirmed).toMatchObject({ status: 200, json: { status: 'confirmed' } });
    const outcome = JSON.parse(readFileSync(k.outcomeFile, 'utf8')) as { status: Record<string, string>; at: string };
    expect(outcome.status).toMatchObject({ change_id: k.change.change_id, state: 'confirmed' });
    // Confirmed by the server started in place of the killed one.
    expect(Date.parse(outcome.at)).toBeGreaterThan(killedAt);
    expect(await k.lab.vtysh('R1', 'show running-config')).toContain('neighbor 10.0.0.2 shutdown');

    await k.first.stop('SIGTERM');
    await untilGone(replacement.pid);
    expect(serverFilesLeft(k.journal)).toEqual([]);
  });

  it('starts that keep failing put a named reason on /health (degraded, backed off, no loop); once one succeeds the change the post-check failed is rolled back there, read back', { timeout: 300_000 }, async () => {
    const k = await appliedPending({ confirmWithinS: 3600, mode: 'detached', lab });
    const killed = k.deviceServer!;
    // Every start from now on fails: the inventory no longer reads.
    const inventory = readFileSync(k.env.DEVICE_INVENTORY, 'utf8');
    writeFileSync(k.env.DEVICE_INVENTORY, 'devices: [not, an, inventory\n');
    process.kill(killed.pid, 'SIGKILL');

    const down = await untilHealth(k.first, (h) => h.warnings.some((w) => w.includes('starting it again')) || (h.reasons ?? []).length > 0, 'that it is down');
    expect([...down.warnings, ...(down.reasons ?? [])]).toContainEqual(expect.stringContaining(`process ${killed.pid} is gone`));
    const failing = await untilHealth(k.first, (h) => h.status === 'degraded' && (h.reasons ?? []).some((r) => r.startsWith('The device tool server cannot be started again')), 'that starts keep failing');
    expect(failing.reasons).toContainEqual(expect.stringMatching(/^The device tool server cannot be started again: \d+ starts since \S+ failed \(last: the device tool server exited.* before it was ready; .*\); next try in \d+ s\./));
    // Backed off, not looping: each start is logged, and there are few.
    expect(k.first.output.filter((l) => l.includes('could not be started again')).length).toBeLessThanOrEqual(6);

    writeFileSync(k.env.DEVICE_INVENTORY, inventory);
    const next = await untilReplaced(k.journal, killed.pid);
    const replacement = supervisedServer(k.journal);
    const back = await untilHealth(k.first, (h) => h.status === 'ok' && h.warnings.some((w) => w.includes('was started again')), 'the restart');
    expect(back.warnings).toContainEqual(expect.stringMatching(restartNote(killed.pid, next.pid)));

    // The post-check fails (R1's session to R2 is shut): the relay has the new server roll it back.
    const settled = await untilIncident(k.first, k.id, (i) => i.change?.state !== 'pending', 'settled', 150_000);
    expect(settled.change).toMatchObject({ change_id: k.change.change_id, state: 'rolled_back', ended_by: 'post_check_failed' });
    expect(await k.lab.vtysh('R1', 'show running-config')).toBe(k.before);
    expect(JSON.parse(readFileSync(k.outcomeFile, 'utf8'))).toMatchObject({ status: { state: 'rolled_back', detail: expect.stringContaining('matches the one before') } });
    await waitForSession(k.lab.vtysh, 'R1', '10.0.0.2', 'Established');

    await k.first.stop('SIGTERM');
    await untilGone(replacement.pid);
    expect(alive(killed.pid)).toBe(false);
    expect(serverFilesLeft(k.journal)).toEqual([]);
  });

  it('a plan provisional on R1 and R2 when it is killed: the new server keeps both changes and puts both back at their deadline, read back, and the relay records the plan rolled back on both', { timeout: 240_000 }, async () => {
    const k = await planPending({ confirmWithinS: WINDOW_S, mode: 'detached', lab });
    const killed = k.deviceServer!;
    process.kill(killed.pid, 'SIGKILL');
    await untilGone(killed.pid);
    const next = await untilReplaced(k.journal, killed.pid);
    const replacement = supervisedServer(k.journal);
    expect(replacement.pid).toBe(next.pid);

    const settled = await untilIncident(k.first, k.id, (i) => (i.plan_changes ?? []).every((c) => c.state !== 'pending'), 'settled', 150_000);
    expect(settled.plan_changes!.map((c) => [c.device, c.state, c.ended_by])).toEqual([['R1', 'rolled_back', 'deadline'], ['R2', 'rolled_back', 'deadline']]);
    expect(settled.timeline.filter((e) => e.type === 'plan.rolled_back')).toHaveLength(1);
    expect(settled.timeline.map((e) => e.type)).not.toContain('plan.confirmed');
    // Every device of the plan read back by the server started in place of the killed one: as before the plan.
    for (const c of k.changes) {
      const outcome = JSON.parse(readFileSync(k.files(c).outcome, 'utf8')) as { status: Record<string, string>; at: string };
      expect(outcome.status).toMatchObject({ change_id: c.change_id, device: c.device, state: 'rolled_back', detail: expect.stringContaining('matches the one before') });
      expect(Date.parse(outcome.at)).toBeLessThanOrEqual(Date.parse(c.deadline) + ROLLBACK_GRACE_S * 1000);
    }
    expect(await runningBoth(lab)).toEqual(k.before);
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');

    await k.first.stop('SIGTERM');
    await untilGone(replacement.pid);
    expect(serverFilesLeft(k.journal)).toEqual([]);
  });

  it('killed between R1\'s and R2\'s applies of a plan: the plan fails on R2, R1 is put back through the server started again, read back, and R2 was never changed', { timeout: 240_000 }, async () => {
    const k = await planApproved({ confirmWithinS: 3600, mode: 'detached', lab });
    const killed = k.deviceServer!;
    // R2's bgpd stopped: its change waits on reading R2's configuration, after R1's change went on.
    signalDaemon(lab, 'R2', 'bgpd', 'SIGSTOP');
    let answer: Awaited<ReturnType<typeof k.apply>>;
    try {
      const applying = k.apply();
      // R1 took its lines (its record is the server's answer) and R2 is named, its lines on their way.
      await untilIncident(k.first, k.id, (i) => (i.plan_changes ?? []).length === 2 && !i.plan_changes![0]!.unanswered, 'changed on R1, R2 under way');
      process.kill(killed.pid, 'SIGKILL');
      answer = await applying;
    } finally {
      signalDaemon(lab, 'R2', 'bgpd', 'SIGCONT');
    }
    expect(answer).toMatchObject({ isError: true, text: expect.stringMatching(/The plan was NOT applied: R2 refused or failed/) });
    await untilReplaced(k.journal, killed.pid);
    const replacement = supervisedServer(k.journal);

    const settled = await untilIncident(k.first, k.id, (i) => (i.plan_changes ?? []).every((c) => c.state !== 'pending'), 'settled', 150_000);
    // R2 was named before its lines left; the new server, on the same journal, has no record of it: not changed.
    expect(settled.plan_changes!.map((c) => [c.device, c.state])).toEqual([['R1', 'rolled_back'], ['R2', 'not_applied']]);
    expect(settled.timeline.filter((e) => e.type === 'plan.failed').map((e) => e.message)).toEqual([expect.stringMatching(/failed on R2/)]);
    expect(settled.timeline.filter((e) => e.type === 'device.change_not_applied').map((e) => e.message)).toEqual([expect.stringMatching(/^R2 not changed \(the device tool server has no record of change chg-\w+: none of its lines was sent\)$/)]);
    expect(settled.timeline.filter((e) => e.type === 'plan.rolled_back').map((e) => e.message)).toEqual([expect.stringMatching(/\(the plan failed on R2\): R1 rolled back: requested; R2 not changed/)]);
    expect(settled.timeline.map((e) => e.type)).not.toContain('device.quarantined');
    const outcome = JSON.parse(readFileSync(join(k.journal, `outcome-${settled.plan_changes![0]!.change_id}.json`), 'utf8')) as { status: Record<string, string> };
    expect(outcome.status).toMatchObject({ device: 'R1', state: 'rolled_back', detail: expect.stringContaining('matches the one before') });
    expect(await runningBoth(lab)).toEqual(k.before);
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');

    await k.close();
    await k.first.stop('SIGTERM');
    await untilGone(replacement.pid);
    expect(serverFilesLeft(k.journal)).toEqual([]);
  });

  it('killed after R2\'s change was journaled, its first line waiting on R2: the relay knows R2 by the id it gave it, has the new server put back R1 and then R2, read back, and writes the plan rolled back once both have ended', { timeout: 240_000 }, async () => {
    const k = await planApproved({ confirmWithinS: 3600, mode: 'detached', lab });
    const killed = k.deviceServer!;
    const stopped = new Set<string>();
    const stop = (d: string, how: 'SIGSTOP' | 'SIGCONT') => (signalDaemon(lab, 'R2', d, how), how === 'SIGSTOP' ? stopped.add(d) : stopped.delete(d));
    let applying: ReturnType<typeof k.apply> | undefined;
    try {
      // R2's read of its configuration waits on staticd, the last daemon vtysh asks: bgpd has answered it. With bgpd
      // stopped and staticd let go, the read ends, R2's change is journaled, and its first line waits on bgpd.
      stop('staticd', 'SIGSTOP');
      applying = k.apply();
      await until(() => vtyshWaitsOn(lab, 'R2', 'staticd'));
      stop('bgpd', 'SIGSTOP');
      stop('staticd', 'SIGCONT');
      const r2 = await until(() => journaledFor(k.journal, 'R2'));
      process.kill(killed.pid, 'SIGKILL');
      // The id the server journaled is the one the relay recorded before sending R2's lines.
      const named = await untilIncident(k.first, k.id, (i) => (i.plan_changes ?? []).length === 2, 'naming R2');
      expect(named.plan_changes![1]).toMatchObject({ device: 'R2', change_id: r2.change_id });
      await untilReplaced(k.journal, killed.pid);
      supervisedServer(k.journal);
      // R1 is put back through the new server; R2's put-back waits on its bgpd: no plan-wide line yet.
      const half = await untilIncident(k.first, k.id, (i) => i.timeline.some((e) => e.type === 'device.change_rolled_back'), 'R1 put back', 150_000);
      expect(half.plan_changes!.map((c) => [c.device, c.state])).toEqual([['R1', 'rolled_back'], ['R2', 'pending']]);
      expect(half.timeline.map((e) => e.type)).not.toContain('plan.rolled_back');
      expect(await lab.vtysh('R1', 'show running-config')).toBe(k.before.R1);
    } finally {
      for (const d of stopped) signalDaemon(lab, 'R2', d, 'SIGCONT');
    }
    expect(await applying).toMatchObject({ isError: true, text: expect.stringMatching(/The plan was NOT applied: R2 refused or failed/) });

    const settled = await untilIncident(k.first, k.id, (i) => i.timeline.some((e) => e.type === 'plan.rolled_back'), 'rolled back', 150_000);
    expect(settled.plan_changes!.map((c) => [c.device, c.state, c.ended_by])).toEqual([['R1', 'rolled_back', 'requested'], ['R2', 'rolled_back', 'requested']]);
    for (const c of settled.plan_changes!) expect(c.detail).toContain('matches the one before');
    // As a person reads it: R2's end after R1's, and one plan-wide line after both, naming both.
    const lines = settled.timeline.filter((e) => ['device.change_rolled_back', 'plan.rolled_back'].includes(e.type)).map((e) => e.message);
    expect(lines).toEqual([expect.stringMatching(/^Change on R1 rolled back/), expect.stringMatching(/^Change on R2 rolled back/), expect.stringMatching(/^Plan \S+ rolled back \(the plan failed on R2\): R1 rolled back: requested; R2 rolled back: requested$/)]);
    expect(settled.timeline.filter((e) => e.type === 'plan.failed')).toHaveLength(1);
    const evidence = await api<{ change: { result: string; summary: string } }>(`${k.first.url}/incidents/${k.id}/evidence?format=json`, { token: k.ana.token });
    expect(evidence.json.change).toMatchObject({ result: 'rolled_back', summary: expect.stringMatching(/R1 rolled back: requested; R2 rolled back: requested/) });
    expect(await runningBoth(lab)).toEqual(k.before);
    await waitForSession(lab.vtysh, 'R1', '10.0.0.2', 'Established');

    await k.close();
    await k.first.stop('SIGTERM');
  });
});
