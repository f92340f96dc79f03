import type { Logger } from 'pino';
import { DeviceToolError, type DeviceTools } from './device-contract';
import type { Clock } from '../clock';
import type { ChangeEnding, ChangeRecord } from '../incidents/change';
import type { Incidents } from '../incidents/service';
import type { Owns } from '../incidents/ownership';
import { neverTaken, planResults, planResultText, recordOf, writePlanChanges } from './plan-settle';
import { runPlanChecks, type PlanChecks } from './plan-post-check';
import { entries, isEntry } from '../events/timeline-entries';
import { errorText } from '../error-body';

export interface PlanApplyDeps {
  incidents: Incidents;
  upstream: Pick<DeviceTools, 'execCli' | 'configProvisional' | 'confirmChange' | 'rollbackChange' | 'changeStatus'>;
  /** The plan's post-checks from the RAW, one per revalidate step with its device, or why there are none. */
  checks(incidentId: string): Promise<PlanChecks>;
  clock: Clock;
  logger: Logger;
  owns: Owns;
  maxPaceS?: number;
  tell?(incidentId: string, markdown: string): void;
  ended?(incidentId: string, change: ChangeRecord): Promise<void>;
  /** Resolves when what was written on the incidents is durable (a write-behind store's flush). */
  durable?(): Promise<void>;
}

const DEADLINE_GRACE_MS = 2_000;
const RETRY_MS = 5_000;
export const TRIES = 12;

/** What every step of settling a plan shares: one chain of work per incident, its deadline timer, and how its changes are written. */
export interface PlanContext {
  deps: PlanApplyDeps;
  timers: Map<string, { cancel(): void }>;
  stopped: boolean;
  serial<T>(id: string, work: () => Promise<T>): Promise<T>;
  current(id: string): ChangeRecord[];
  requestOf(id: string): string;
  now(): string;
  /** Writes the plan's changes; once none is pending the deadline timer goes. */
  write(id: string, before: ChangeRecord[], after: ChangeRecord[]): ChangeRecord[];
}

export function planContext(deps: PlanApplyDeps): PlanContext {
  const { incidents, clock, logger } = deps;
  const chains = new Map<string, Promise<unknown>>();
  const ctx: PlanContext = {
    deps,
    timers: new Map(),
    stopped: false,
    serial<T>(id: string, work: () => Promise<T>): Promise<T> {
      const run = (chains.get(id) ?? Promise.resolve()).then(work, work);
      chains.set(id, run.catch(() => undefined));
      return run;
    },
    current: (id) => incidents.get(id)?.plan_changes ?? [],
    requestOf: (id) => incidents.get(id)?.approval_request?.request_id ?? '',
    now: () => clock.now().toISOString(),
    write(id, before, after) {
      const ended = writePlanChanges(incidents, id, before, after);
      for (const c of ended) deps.ended?.(id, c).catch((error: unknown) => logger.error({ incident_id: id, err: error }, 'what follows the end of a change failed'));
      if (after.every((c) => c.state !== 'pending')) {
        ctx.timers.get(id)?.cancel();
        ctx.timers.delete(id);
      }
      return after;
    },
  };
  return ctx;
}

const devicesOf = (changes: readonly ChangeRecord[]) => changes.map((c) => c.device);

/**
 * Asks each device's server to put the plan's change back, one device after the other, and writes
 * each device's end as soon as it is learned; the server reads it back and says rolled_back or
 * rollback_failed. A server that cannot be asked at all (killed, being started again) leaves the change
 * pending, to be asked again (its journal still holds it, and puts it back at the deadline regardless).
 * `lastEnded` runs with the write that ends the plan's last device, so nobody reads every device ended without it.
 */
export async function putBack(ctx: PlanContext, id: string, ending: ChangeEnding, why: string, lastEnded?: (after: ChangeRecord[]) => void): Promise<ChangeRecord[]> {
  for (const change of ctx.current(id)) {
    if (change.state !== 'pending') continue;
    const ended = await askBack(ctx, change, ending, why);
    if (ended === change) continue;
    const before = ctx.current(id);
    const after = ctx.write(id, before, before.map((c) => (c.change_id === change.change_id ? ended : c)));
    if (!after.some((c) => c.state === 'pending')) lastEnded?.(after);
  }
  return ctx.current(id);
}

/**
 * One device's change put back by its server, or what the server says of it. A change the relay never
 * had the apply's answer for, which the server answers it has no record of, was never taken: its
 * journal records every change before its first line is sent.
 */
async function askBack(ctx: PlanContext, change: ChangeRecord, ending: ChangeEnding, why: string): Promise<ChangeRecord> {
  const { upstream } = ctx.deps;
  let unknown = false;
  const status = await upstream.rollbackChange(change.device, change.change_id, why).catch(async (error: unknown) => {
    const known = await upstream.changeStatus(change.device, change.change_id).catch((e: unknown) => {
      unknown = e instanceof DeviceToolError && e.failure.kind === 'not_pending';
      return undefined;
    });
    if (!known && !unknown) ctx.deps.logger.warn({ device: change.device, change_id: change.change_id, err: error }, `the rollback could not be asked; the device tool server puts it back at ${change.deadline}`);
    return known;
  });
  if (status) return recordOf(change, status, ending, ctx.now());
  return unknown && change.unanswered ? neverTaken(change, ctx.now()) : change;
}

/** Every pending change of the plan confirmed (by the post-checks or a person); what could not be is said. */
export async function confirmAll(ctx: PlanContext, id: string, ending: 'post_check' | 'person', person?: string): Promise<{ ok: boolean; message: string }> {
  const { incidents, upstream } = ctx.deps;
  const before = ctx.current(id);
  if (!before.some((c) => c.state === 'pending')) return { ok: false, message: `the plan was already ${planResultText(before)}` };
  const after: ChangeRecord[] = [];
  for (const change of before) {
    if (change.state !== 'pending') {
      after.push(change);
      continue;
    }
    const status = await upstream.confirmChange(change.device, change.change_id).catch(() => upstream.changeStatus(change.device, change.change_id).catch(() => undefined));
    after.push(status ? recordOf(change, status, ending, ctx.now(), person) : change);
  }
  ctx.write(id, before, after);
  const request_id = ctx.requestOf(id);
  if (after.every((c) => c.state === 'confirmed')) {
    incidents.record(id, entries.planConfirmed, `Plan ${request_id} confirmed on ${devicesOf(after).join(', ')} ${ending === 'person' ? `by ${person ?? 'a person'}` : 'by the post-checks'}`, { request_id, devices: devicesOf(after), by: ending, ...(person ? { person } : {}) });
    ctx.deps.tell?.(id, `**${id}**: plan ${request_id} confirmed on ${devicesOf(after).join(', ')}.`);
    return { ok: true, message: 'confirmed' };
  }
  const back = after.find((c) => c.state === 'rolled_back' || c.state === 'rollback_failed');
  if (back && !after.some((c) => c.state === 'pending')) {
    // Put back by the devices' servers before the confirm reached them (their deadlines): the plan ended rolled back.
    recordRolledBack(ctx, id, after, back.ended_by ?? 'deadline', 'a device of the plan was put back before it could be confirmed');
    return { ok: false, message: planResultText(after) };
  }
  const text = planResultText(after);
  incidents.record(id, entries.deviceChangeError, `Plan ${request_id} could not be confirmed on every device: ${text}`.slice(0, 2000), { request_id, devices: devicesOf(after), results: planResults(after) });
  return { ok: false, message: text };
}

/** Every pending change of the plan put back and read back; the incident says why and how each device ended. */
export async function rollbackAll(ctx: PlanContext, id: string, ending: ChangeEnding, why: string): Promise<void> {
  const before = ctx.current(id);
  if (ctx.stopped || !before.some((c) => c.state === 'pending')) return;
  const after = await putBack(ctx, id, ending, why, (ended) => recordRolledBack(ctx, id, ended, ending, why));
  if (after.some((c) => c.state === 'pending')) retryPutBack(ctx, id, ending, why);
}

/** A device's server could not be asked (killed, being started again): asked again shortly, until every device is put back. */
export function retryPutBack(ctx: PlanContext, id: string, ending: ChangeEnding, why: string): void {
  ctx.timers.get(id)?.cancel();
  ctx.timers.set(id, ctx.deps.clock.setTimeout(() => void ctx.serial(id, () => rollbackAll(ctx, id, ending, why)), RETRY_MS));
}

/** The plan-wide line, once every device of the plan has ended: rolled back, why, and how each device ended. */
export function recordRolledBack(ctx: PlanContext, id: string, after: readonly ChangeRecord[], ending: ChangeEnding, why: string): void {
  const request_id = ctx.requestOf(id);
  if (after.some((c) => c.state === 'pending')) return;
  if (ctx.deps.incidents.timeline(id).some((e) => isEntry(e, entries.planRolledBack) && e.request_id === request_id)) return;
  ctx.deps.incidents.record(id, entries.planRolledBack, `Plan ${request_id} rolled back (${why}): ${planResultText(after)}`.slice(0, 2000), { request_id, devices: devicesOf(after), reason: ending, results: planResults(after) });
  ctx.deps.tell?.(id, `**${id}**: plan ${request_id} rolled back on every device (${why}): ${planResultText(after)}.`);
}

/** The plan's post-checks, then confirmed on every device when all pass, rolled back on every device otherwise. */
export async function postCheck(ctx: PlanContext, id: string): Promise<void> {
  const { incidents, upstream, clock } = ctx.deps;
  const checks = await ctx.deps.checks(id).catch((error: unknown) => ({ reason: `the RAW could not be read (${errorText(error)})` }));
  const pending = () => ctx.current(id).some((c) => c.state === 'pending');
  if (!pending()) return;
  const verdict = await runPlanChecks({ incidents, upstream, clock, maxPaceS: ctx.deps.maxPaceS, stopped: () => ctx.stopped || !pending() }, id, checks);
  if (verdict === 'none' || verdict === 'stopped') return;
  if (verdict.ok) await ctx.serial(id, () => confirmAll(ctx, id, 'post_check'));
  else await ctx.serial(id, () => rollbackAll(ctx, id, 'post_check_failed', `post-check failed: ${verdict.failed.join('; ')}`.slice(0, 500)));
}

/** At the first deadline a device's server has put its change back by itself: learn it, and put back the rest. */
export function armDeadline(ctx: PlanContext, id: string, tries = 0): void {
  const { clock } = ctx.deps;
  ctx.timers.get(id)?.cancel();
  const pending = ctx.current(id).filter((c) => c.state === 'pending');
  if (pending.length === 0) return;
  const first = Math.min(...pending.map((c) => Date.parse(c.deadline)));
  const wait = tries === 0 ? Math.max(0, first - clock.now().getTime()) + DEADLINE_GRACE_MS : RETRY_MS;
  ctx.timers.set(id, clock.setTimeout(() => void ctx.serial(id, () => atDeadline(ctx, id, tries)), wait));
}

export async function atDeadline(ctx: PlanContext, id: string, tries: number): Promise<void> {
  const before = ctx.current(id);
  if (ctx.stopped || !before.some((c) => c.state === 'pending')) return;
  const statusRecord = async (c: ChangeRecord) => {
    const status = await ctx.deps.upstream.changeStatus(c.device, c.change_id).catch(() => undefined);
    return status ? recordOf(c, status, 'deadline', ctx.now()) : c;
  };
  const after = await Promise.all(before.map(async (c) => (c.state === 'pending' ? await statusRecord(c) : c)));
  ctx.write(id, before, after);
  const putBackAlready = after.some((c) => c.state !== 'pending' && c.state !== 'confirmed');
  if (putBackAlready && after.some((c) => c.state === 'pending')) await rollbackAll(ctx, id, 'deadline', 'a device of the plan rolled back at its deadline');
  else if (putBackAlready && before.some((c) => c.state === 'pending')) recordRolledBack(ctx, id, after, 'deadline', 'every device of the plan rolled back at its deadline');
  else if (after.some((c) => c.state === 'pending') && tries + 1 < TRIES) armDeadline(ctx, id, tries + 1);
}
