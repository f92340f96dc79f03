import type { Logger } from 'pino';
import type { ApplyExpect, ChangeStatus, DeviceTools } from './device-contract';
import type { Clock } from '../clock';
import type { ChangeEnding, ChangeRecord } from '../incidents/change';
import type { Incidents } from '../incidents/service';
import { pendingRecord, planResults, planResultText, recordOf, writePlanChanges } from './plan-settle';
import { runPlanChecks, type PlanChecks } from './plan-post-check';
import { entries } from '../events/timeline-entries';

export interface PlanApplyDeps {
  incidents: Incidents;
  upstream: Pick<DeviceTools, 'execCli' | 'configProvisional' | 'confirmChange' | 'rollbackChange' | 'changeStatus'>;
  /** The plan's post-checks from the RAW, one per revalidate step with its device, or why there are none. */
  checks(incidentId: string): Promise<PlanChecks>;
  clock: Clock;
  logger: Logger;
  owns?(incidentId: string): boolean;
  maxPaceS?: number;
  tell?(incidentId: string, markdown: string): void;
  ended?(incidentId: string, change: ChangeRecord): Promise<void>;
}

export interface PlanStep {
  device: string;
  commands: string[];
  expect: ApplyExpect;
}
/** `changedBefore`: how many devices had taken their lines before the one that failed (then the approval is spent whatever `error` was). */
export type PlanApplied = { ok: true; changes: ChangeRecord[]; output: string } | { ok: false; error: unknown; changedBefore: number; failed_device: string; reason: string; put_back: ChangeRecord[] };

const DEADLINE_GRACE_MS = 2_000;
const RETRY_MS = 5_000;
const TRIES = 12;

/**
 * A plan's changes go on every device or on none, and end together: confirmed when every device's
 * post-check passes (or a person confirms), otherwise rolled back on every device, each read back by
 * the device tool server. Each device's own deadline (its journal, or a NETCONF confirmed commit)
 * puts it back if the relay is gone; after a restart the relay finishes what the plan's record says.
 */
export function createPlanApply(deps: PlanApplyDeps) {
  const { incidents, upstream, clock, logger } = deps;
  const owns = deps.owns ?? (() => true);
  const chains = new Map<string, Promise<unknown>>();
  const timers = new Map<string, { cancel(): void }>();
  let stopped = false;
  const serial = <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const run = (chains.get(id) ?? Promise.resolve()).then(work, work);
    chains.set(id, run.catch(() => undefined));
    return run;
  };
  const current = (id: string) => incidents.get(id)?.plan_changes ?? [];
  const requestOf = (id: string) => incidents.get(id)?.approval_request?.request_id ?? '';
  const devicesOf = (changes: readonly ChangeRecord[]) => changes.map((c) => c.device);
  const now = () => clock.now().toISOString();

  function write(id: string, before: ChangeRecord[], after: ChangeRecord[]): ChangeRecord[] {
    const ended = writePlanChanges(incidents, id, before, after);
    for (const c of ended) deps.ended?.(id, c).catch((error: unknown) => logger.error({ incident_id: id, err: error }, 'what follows the end of a change failed'));
    if (after.every((c) => c.state !== 'pending')) {
      timers.get(id)?.cancel();
      timers.delete(id);
    }
    return after;
  }

  /** Asks each device's server to put its change back; the server reads it back and says rolled_back or rollback_failed. */
  async function putBack(id: string, changes: ChangeRecord[], ending: ChangeEnding, why: string): Promise<ChangeRecord[]> {
    const after: ChangeRecord[] = [];
    for (const change of changes) {
      if (change.state !== 'pending') { after.push(change); continue; }
      const status = await upstream.rollbackChange(change.device, change.change_id, why).catch(async (error: unknown) => {
        const known = await upstream.changeStatus(change.device, change.change_id).catch(() => undefined);
        const failed: ChangeStatus = { ...change, state: 'rollback_failed', reason: 'requested', detail: `the rollback could not be asked (${(error as Error).message.slice(0, 200)}); the device tool server rolls it back at ${change.deadline}` };
        return known ?? failed;
      });
      after.push(recordOf(change, status, ending, now()));
    }
    return after;
  }

  /** Every device's change, in plan order; a device that refuses or fails puts back every one changed before it. */
  async function apply(id: string, steps: readonly PlanStep[], withinS: number): Promise<PlanApplied> {
    const applied: ChangeRecord[] = [];
    const outputs: string[] = [];
    for (const step of steps) {
      try {
        const r = await upstream.configProvisional(step.device, step.commands, withinS, step.expect);
        applied.push(pendingRecord(r.change, withinS, now()));
        outputs.push(`${step.device}:\n${r.output}`);
      } catch (error) {
        const reason = (error as Error).message.slice(0, 500);
        const put = await putBack(id, applied, 'requested', `the plan failed on ${step.device}`);
        write(id, applied, put);
        const request_id = requestOf(id);
        const text = put.length ? planResultText(put) : 'no other device had been changed';
        incidents.record(id, entries.planFailed, `Plan ${request_id} failed on ${step.device}: ${reason}. Put back: ${text}`.slice(0, 2000), { request_id, devices: steps.map((s) => s.device), failed_device: step.device, reason, put_back: planResults(put) });
        deps.tell?.(id, `**${id}**: plan ${request_id} failed on ${step.device} (${reason.slice(0, 200)}); ${text}.`);
        return { ok: false, error, changedBefore: applied.length, failed_device: step.device, reason, put_back: put };
      }
    }
    return { ok: true, changes: applied, output: outputs.join('\n\n') };
  }

  async function confirmAll(id: string, ending: 'post_check' | 'person', person?: string): Promise<{ ok: boolean; message: string }> {
    const before = current(id);
    if (!before.some((c) => c.state === 'pending')) return { ok: false, message: `the plan was already ${planResultText(before)}` };
    const after: ChangeRecord[] = [];
    for (const change of before) {
      if (change.state !== 'pending') { after.push(change); continue; }
      const status = await upstream.confirmChange(change.device, change.change_id).catch(() => upstream.changeStatus(change.device, change.change_id).catch(() => undefined));
      after.push(status ? recordOf(change, status, ending, now(), person) : change);
    }
    write(id, before, after);
    const request_id = requestOf(id);
    if (after.every((c) => c.state === 'confirmed')) {
      incidents.record(id, entries.planConfirmed, `Plan ${request_id} confirmed on ${devicesOf(after).join(', ')} ${ending === 'person' ? `by ${person ?? 'a person'}` : 'by the post-checks'}`, { request_id, devices: devicesOf(after), by: ending, ...(person ? { person } : {}) });
      deps.tell?.(id, `**${id}**: plan ${request_id} confirmed on ${devicesOf(after).join(', ')}.`);
      return { ok: true, message: 'confirmed' };
    }
    const text = planResultText(after);
    incidents.record(id, entries.deviceChangeError, `Plan ${request_id} could not be confirmed on every device: ${text}`.slice(0, 2000), { request_id, devices: devicesOf(after), results: planResults(after) });
    return { ok: false, message: text };
  }

  async function rollbackAll(id: string, ending: ChangeEnding, why: string): Promise<void> {
    const before = current(id);
    if (stopped || !before.some((c) => c.state === 'pending')) return;
    const after = write(id, before, await putBack(id, before, ending, why));
    const request_id = requestOf(id);
    incidents.record(id, entries.planRolledBack, `Plan ${request_id} rolled back (${why}): ${planResultText(after)}`.slice(0, 2000), { request_id, devices: devicesOf(after), reason: ending, results: planResults(after) });
    deps.tell?.(id, `**${id}**: plan ${request_id} rolled back on every device: ${planResultText(after)}.`);
  }

  async function postCheck(id: string): Promise<void> {
    const checks = await deps.checks(id).catch((error: unknown) => ({ reason: `the RAW could not be read (${(error as Error).message})` }));
    if (!current(id).some((c) => c.state === 'pending')) return;
    const verdict = await runPlanChecks({ incidents, upstream, clock, maxPaceS: deps.maxPaceS, stopped: () => stopped || !current(id).some((c) => c.state === 'pending') }, id, checks);
    if (verdict === 'none' || verdict === 'stopped') return;
    if (verdict.ok) await serial(id, () => confirmAll(id, 'post_check'));
    else await serial(id, () => rollbackAll(id, 'post_check_failed', `post-check failed: ${verdict.failed.join('; ')}`.slice(0, 500)));
  }

  /** At the first deadline a device's server has put its change back by itself: learn it, and put back the rest. */
  function armDeadline(id: string, tries = 0): void {
    timers.get(id)?.cancel();
    const pending = current(id).filter((c) => c.state === 'pending');
    if (pending.length === 0) return;
    const first = Math.min(...pending.map((c) => Date.parse(c.deadline)));
    const wait = tries === 0 ? Math.max(0, first - clock.now().getTime()) + DEADLINE_GRACE_MS : RETRY_MS;
    timers.set(id, clock.setTimeout(() => void serial(id, () => atDeadline(id, tries)), wait));
  }

  const statusRecord = async (c: ChangeRecord) => {
    const status = await upstream.changeStatus(c.device, c.change_id).catch(() => undefined);
    return status ? recordOf(c, status, 'deadline', now()) : c;
  };

  async function atDeadline(id: string, tries: number): Promise<void> {
    const before = current(id);
    if (stopped || !before.some((c) => c.state === 'pending')) return;
    const after = await Promise.all(before.map(async (c) => (c.state === 'pending' ? await statusRecord(c) : c)));
    write(id, before, after);
    if (after.some((c) => c.state !== 'pending' && c.state !== 'confirmed')) await rollbackAll(id, 'deadline', 'a device of the plan rolled back at its deadline');
    else if (after.some((c) => c.state === 'pending') && tries + 1 < TRIES) armDeadline(id, tries + 1);
  }

  return {
    apply,
    /** The plan went on every device: record it, arm the deadline, run the post-checks. */
    started(id: string, changes: ChangeRecord[], linesSha256: string): void {
      incidents.update(id, () => ({ plan_changes: changes }));
      const request_id = requestOf(id);
      incidents.record(id, entries.planApplied, `Plan ${request_id} applied provisionally on ${devicesOf(changes).join(', ')}: confirmed together when every post-check passes, else put back on every device`, { request_id, devices: devicesOf(changes), lines_sha256: linesSha256, changes: changes.map((c) => ({ device: c.device, change_id: c.change_id, deadline: c.deadline })) });
      armDeadline(id);
      void postCheck(id).catch((error: unknown) => logger.error({ incident_id: id, err: error }, 'plan post-check stopped'));
    },
    /** A person keeps the plan: every device's change is confirmed. `changeId` is any of the plan's changes. */
    async confirmByPerson(id: string, changeId: string, person: string): Promise<{ ok: boolean; message: string }> {
      if (!current(id).some((c) => c.change_id === changeId)) return { ok: false, message: `change ${changeId} is not one of ${id}'s plan` };
      return serial(id, () => confirmAll(id, 'person', person));
    },
    has: (id: string) => current(id).length > 0,
    /** After a restart: a plan partly confirmed is confirmed on the rest (it was decided); a plan still pending is post-checked again. */
    recover(): void {
      for (const incident of incidents.values()) {
        const changes = incident.plan_changes ?? [];
        const id = incident.incident_id;
        if (!owns(id) || !changes.some((c) => c.state === 'pending')) continue;
        armDeadline(id);
        if (changes.some((c) => c.state === 'confirmed')) void serial(id, () => confirmAll(id, 'post_check')).catch(() => undefined);
        else void serial(id, () => atDeadline(id, TRIES)).then(() => postCheck(id)).catch(() => undefined);
      }
    },
    stop(): void {
      stopped = true;
      for (const t of timers.values()) t.cancel();
      timers.clear();
    },
  };
}

export type PlanApply = ReturnType<typeof createPlanApply>;
