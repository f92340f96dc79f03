import type { Logger } from 'pino';
import type { ChangeStatus, DeviceTools } from './device-contract';
import type { Clock } from '../clock';
import { changeOutcomeText, endingOfReason, nextChangeState, type ChangeEnding, type ChangeEvent, type ChangeRecord } from '../incidents/change';
import type { Incidents } from '../incidents/service';
import type { Owns } from '../incidents/ownership';
import { newestFirst } from '../incidents/store';
import type { NoPostCheck, PostCheckPlan } from './post-check';
import { entries } from '../events/timeline-entries';
import { errorText } from '../error-body';

export interface ConfirmedApplyDeps {
  incidents: Incidents;
  upstream: Pick<DeviceTools, 'execCli' | 'confirmChange' | 'rollbackChange' | 'changeStatus'>;
  /** The incident's post-check from its RAW, or why there is none. */
  plan(incidentId: string): Promise<PostCheckPlan | NoPostCheck>;
  clock: Clock;
  logger: Logger;
  /** A team relay acts only on its own incidents (src/core/incidents/ownership.ts). */
  owns: Owns;
  /** Caps the RAW's waits and retry intervals, in seconds (a demo or a test need not wait 10 s). */
  maxPaceS?: number;
  /** A notice on every operator channel. */
  tell?(incidentId: string, markdown: string): void;
  /** Told of every change that ended (the quarantine reads a rollback that failed). */
  ended?(incidentId: string, change: ChangeRecord): Promise<void>;
  /** Told of a change whose end was never learned: what its device holds is not known (the quarantine). */
  unlearned?(incidentId: string, change: ChangeRecord, why: string): Promise<void>;
}

export type ConfirmResult =
  | { ok: true; change: ChangeRecord }
  | { ok: false; code: 'unknown_incident' | 'no_change' | 'stale_change' | 'not_pending' | 'device_error' | 'recorded'; message: string; change?: ChangeRecord };

/** How long after the deadline the relay asks the device tool server what it did (its clock may lag). */
const DEADLINE_GRACE_MS = 2_000;
const STATUS_RETRY_MS = 5_000;
const STATUS_TRIES = 12;

/** What the steps of a change share: the deps, its timers, one queue per incident, and whether the relay stopped. */
interface ApplyContext {
  deps: ConfirmedApplyDeps;
  timers: Map<string, { cancel(): void }>;
  /** One operation per incident at a time: a person's confirm and the post-check's never interleave. */
  serial<T>(incidentId: string, work: () => Promise<T>): Promise<T>;
  stopped(): boolean;
  current(incidentId: string): ChangeRecord | null;
  /** The change's steps as spans under the incident's trace; the device server's calls carry it on. */
  traced<T>(incidentId: string, name: string, work: () => Promise<T>): Promise<T>;
}

/** The incident's change moved by the table, or by the device tool server's word for it. */
function changeBook(ctx: ApplyContext) {
  const { deps, timers, current } = ctx;
  const { incidents, clock, logger } = deps;
  /** Moves the incident's change by the table and says so on the timeline and the channels. */
  function settle(incidentId: string, event: ChangeEvent, ending: ChangeEnding, extra: { person?: string; detail?: string } = {}): ChangeRecord | undefined {
    const change = current(incidentId);
    if (!change) return undefined;
    const next = nextChangeState(change.state, event);
    if (!next.ok) return undefined;
    const ended: ChangeRecord = { ...change, state: next.state, ended_by: ending, ended_at: clock.now().toISOString(), person: extra.person ?? null, detail: extra.detail ?? null };
    incidents.update(incidentId, () => ({ change: ended }));
    timers.get(incidentId)?.cancel();
    timers.delete(incidentId);
    const text = `Change on ${change.device} ${changeOutcomeText(ended)}`;
    const def = next.state === 'confirmed' ? entries.deviceChangeConfirmed : entries.deviceChangeRolledBack;
    incidents.record(incidentId, def, extra.detail && next.state === 'rolled_back' ? `${text} (${extra.detail})` : text, { change_id: change.change_id, device: change.device, state: next.state, reason: ending, ...(extra.person ? { by: extra.person } : {}) });
    logger.info({ incident_id: incidentId, change_id: change.change_id, state: next.state, ending }, 'provisional change settled');
    deps.tell?.(incidentId, `**${incidentId}**: ${text}.`);
    deps.ended?.(incidentId, ended).catch((error: unknown) => logger.error({ incident_id: incidentId, change_id: change.change_id, err: error }, 'what follows the end of a change failed'));
    return ended;
  }

  /** Takes the device tool server's word for a change that is no longer pending there. */
  function adopt(incidentId: string, status: ChangeStatus): ChangeRecord | undefined {
    if (status.state === 'pending') return undefined;
    if (status.state === 'confirmed') return settle(incidentId, 'confirm', current(incidentId)?.ended_by ?? 'post_check');
    return settle(incidentId, status.state === 'rolled_back' ? 'rolled_back' : 'rollback_failed', endingOfReason(status.reason), status.detail ? { detail: status.detail } : {});
  }

  return { settle, adopt };
}
type ChangeBook = ReturnType<typeof changeBook>;

/** Confirm (by the post-check or a person) and rollback through the device tool server. */
function decisions(ctx: ApplyContext, book: ChangeBook) {
  const { deps, serial, traced, current } = ctx;
  const { incidents, upstream, clock, logger } = deps;
  const { settle, adopt } = book;
  function confirm(incidentId: string, ending: 'post_check' | 'person', person?: string): Promise<ConfirmResult> {
    return traced(incidentId, 'change.confirm', () => confirmNow(incidentId, ending, person));
  }

  async function confirmNow(incidentId: string, ending: 'post_check' | 'person', person?: string): Promise<ConfirmResult> {
    const change = current(incidentId);
    if (!change) return { ok: false, code: 'no_change', message: `${incidentId} has no applied change to confirm` };
    if (change.state !== 'pending') return { ok: false, code: 'not_pending', message: `the change on ${change.device} was already ${changeOutcomeText(change)}; nothing to confirm`, change };
    try {
      const status = await upstream.confirmChange(change.device, change.change_id);
      if (status.state !== 'confirmed') {
        const ended = adopt(incidentId, status);
        return { ok: false, code: 'not_pending', message: `the device tool server says the change was ${status.state.replace('_', ' ')}${status.reason ? ` (${status.reason})` : ''}`, ...(ended ? { change: ended } : {}) };
      }
      const ended = settle(incidentId, 'confirm', ending, person ? { person } : {});
      return ended ? { ok: true, change: ended } : { ok: false, code: 'not_pending', message: 'the change was settled meanwhile' };
    } catch (error) {
      // The server refused (rolled back meanwhile, a second confirm): its status says which.
      const status = await upstream.changeStatus(change.device, change.change_id).catch(() => undefined);
      const ended = status ? adopt(incidentId, status) : undefined;
      return { ok: false, code: ended ? 'not_pending' : 'device_error', message: errorText(error), ...(ended ? { change: ended } : {}) };
    }
  }

  function rollback(incidentId: string, ending: ChangeEnding, why: string, tries = 0): Promise<void> {
    return traced(incidentId, 'change.rollback', () => rollbackNow(incidentId, ending, why, tries));
  }

  async function rollbackNow(incidentId: string, ending: ChangeEnding, why: string, tries: number): Promise<void> {
    const change = current(incidentId);
    if (change?.state !== 'pending' || ctx.stopped()) return;
    try {
      const status = await upstream.rollbackChange(change.device, change.change_id, why);
      if (!adopt(incidentId, status)) logger.error({ incident_id: incidentId, change_id: change.change_id }, 'rollback answered with the change still pending');
      // The server's reason is the relay's own text: the relay knows why it asked.
      const after = current(incidentId);
      if (after && after.ended_by === 'requested' && ending !== 'requested') incidents.update(incidentId, () => ({ change: { ...after, ended_by: ending } }));
    } catch (error) {
      if (tries === 0) incidents.record(incidentId, entries.deviceChangeError, `Could not roll back the change on ${change.device} (${errorText(error)}); asking again, and the device tool server rolls it back by itself at ${change.deadline}`);
      // A device tool server that went away is started again by the relay: the rollback is asked of it then.
      if (tries + 1 < STATUS_TRIES) clock.setTimeout(() => void serial(incidentId, () => rollback(incidentId, ending, why, tries + 1)), STATUS_RETRY_MS);
    }
  }

  return { confirm, rollback };
}

/** The RAW's post-check run by the relay, and the watch on each change's deadline. */
function watches(ctx: ApplyContext, book: ChangeBook, decide: ReturnType<typeof decisions>) {
  const { deps, serial, traced, current, timers } = ctx;
  const { incidents, upstream, clock, logger } = deps;
  const { adopt } = book;
  const { confirm, rollback } = decide;
  const pace = (s: number) => Math.max(0, Math.min(s, deps.maxPaceS ?? s)) * 1000;
  const delay = (ms: number) => new Promise<void>((resolve) => clock.setTimeout(resolve, ms));

  /** The RAW's post-check, on the device, by the relay: confirm when it passes, roll back when every attempt fails. */
  function postCheck(incidentId: string): Promise<void> {
    return traced(incidentId, 'change.post_check', () => postCheckNow(incidentId));
  }

  async function postCheckNow(incidentId: string): Promise<void> {
    const plan = await deps.plan(incidentId).catch((error: unknown) => ({ reason: `the RAW could not be read (${errorText(error)})` }));
    const change = current(incidentId);
    if (!change || change.state !== 'pending') return;
    if ('reason' in plan) {
      incidents.record(incidentId, entries.devicePostCheck, `No post-check the relay can run (${plan.reason}): a person confirms the change (POST /incidents/${incidentId}/confirm, /ui or the tray), or it rolls back at ${change.deadline}`);
      return;
    }
    await delay(pace(plan.waitS));
    let failed: string[] = [];
    for (let attempt = 1; attempt <= plan.attempts && !ctx.stopped(); attempt++) {
      if (attempt > 1) await delay(pace(plan.intervalS));
      if (current(incidentId)?.state !== 'pending' || ctx.stopped()) return;
      let output: string;
      try {
        output = await upstream.execCli(change.device, plan.command);
      } catch (error) {
        failed = [`${plan.command} failed: ${errorText(error).slice(0, 200)}`];
        continue;
      }
      incidents.record(incidentId, entries.deviceExec, `${change.device}# ${plan.command} (post-check ${attempt}/${plan.attempts})`, { device: change.device, command: plan.command, output: output.slice(0, 20_000), by: 'post-check' });
      const verdict = plan.check(output);
      if (verdict.ok) {
        await serial(incidentId, () => confirm(incidentId, 'post_check'));
        return;
      }
      failed = verdict.failed;
    }
    if (ctx.stopped()) return;
    await serial(incidentId, () => rollback(incidentId, 'post_check_failed', `post-check failed: ${plan.step}: ${failed.join('; ')}`));
  }

  /** At the deadline the device tool server has rolled back by itself: learn what it did. */
  function armDeadline(incidentId: string, change: ChangeRecord, tries = 0, lastError = ''): void {
    timers.get(incidentId)?.cancel();
    const wait = tries === 0 ? Math.max(0, Date.parse(change.deadline) - clock.now().getTime()) + DEADLINE_GRACE_MS : STATUS_RETRY_MS;
    timers.set(
      incidentId,
      clock.setTimeout(() => {
        if (ctx.stopped() || current(incidentId)?.state !== 'pending') return;
        void serial(incidentId, async () => {
          let error = lastError;
          const status = await upstream.changeStatus(change.device, change.change_id).catch((e: unknown) => {
            error = errorText(e).slice(0, 300);
            if (tries === 0) incidents.record(incidentId, entries.deviceChangeError, `The confirm deadline passed and the device tool server did not answer (${error}); asking again`);
            return undefined;
          });
          if (status && adopt(incidentId, status)) return;
          if (tries + 1 < STATUS_TRIES) return armDeadline(incidentId, change, tries + 1, error);
          const why = status ? 'the device tool server still calls it pending' : `the device tool server did not answer (${error || 'no reason given'})`;
          incidents.record(incidentId, entries.deviceChangeError, `The change on ${change.device} is still unconfirmed past its deadline and its state could not be learned (${why}): check the device`);
          await deps.unlearned?.(incidentId, change, why).catch((e: unknown) => logger.error({ incident_id: incidentId, change_id: change.change_id, err: e }, 'could not quarantine a device whose change was never learned'));
        });
      }, wait),
    );
  }

  return { postCheck, armDeadline };
}

/**
 * Every applied change is provisional: the device tool server rolls it back at the deadline unless
 * the relay confirms it. The relay confirms when the RAW's post-check passes on the device (run by
 * the relay itself through the same upstream, never on the model's word) or when a person confirms;
 * it asks for the rollback when the post-check fails. The approval is spent either way.
 */
export function createConfirmedApply(deps: ConfirmedApplyDeps) {
  const { incidents, upstream, clock, logger, owns } = deps;
  const chains = new Map<string, Promise<unknown>>();
  let stopped = false;
  const ctx: ApplyContext = {
    deps,
    timers: new Map(),
    serial: <T>(incidentId: string, work: () => Promise<T>): Promise<T> => {
      const run = (chains.get(incidentId) ?? Promise.resolve()).then(work, work);
      chains.set(incidentId, run.catch(() => undefined));
      return run;
    },
    stopped: () => stopped,
    current: (incidentId) => incidents.get(incidentId)?.change ?? null,
    // The change's steps as spans under the incident's trace; the device server's calls carry it on.
    traced: (incidentId, name, work) => incidents.inSpan(incidentId, name, work),
  };
  const { serial, current, timers } = ctx;
  const book = changeBook(ctx);
  const { adopt } = book;
  const decide = decisions(ctx, book);
  const { confirm } = decide;
  const { postCheck, armDeadline } = watches(ctx, book, decide);

  return {
    /** A change went onto the device provisionally: record it, arm the deadline, start the post-check. */
    started(incidentId: string, status: ChangeStatus, confirmWithinS: number): ChangeRecord {
      const change: ChangeRecord = {
        change_id: status.change_id,
        device: status.device,
        state: 'pending',
        deadline: status.deadline,
        confirm_within_s: confirmWithinS,
        applied_at: clock.now().toISOString(),
        ended_at: null,
        ended_by: null,
        person: null,
        detail: null,
      };
      incidents.update(incidentId, () => ({ change }));
      incidents.record(incidentId, entries.deviceChangePending, `The change on ${change.device} is provisional: it rolls back at ${change.deadline} unless the post-check passes or a person confirms it within ${confirmWithinS} s`, { change_id: change.change_id, device: change.device, deadline: change.deadline });
      armDeadline(incidentId, change);
      void postCheck(incidentId).catch((error: unknown) => logger.error({ incident_id: incidentId, err: error }, 'post-check stopped'));
      return change;
    },
    /** A person's confirm, for the change they were shown (`change_id`). */
    confirmByPerson(incidentId: string, changeId: string, person: string): Promise<ConfirmResult> {
      const change = current(incidentId);
      if (!incidents.get(incidentId)) return Promise.resolve({ ok: false, code: 'unknown_incident', message: `No incident ${incidentId}` });
      if (!change) return Promise.resolve({ ok: false, code: 'no_change', message: `${incidentId} has no applied change to confirm` });
      if (change.change_id !== changeId) return Promise.resolve({ ok: false, code: 'stale_change', message: `That confirm was for change ${changeId}; the incident's change is ${change.change_id}. Nothing changed.`, change });
      return serial(incidentId, () => confirm(incidentId, 'person', person));
    },
    /** After a restart: the deadlines of this relay's changes still pending; the post-check runs again. */
    recover(): void {
      const pending = [...incidents.values()].filter((i) => i.change?.state === 'pending' && owns(i.incident_id));
      for (const incident of pending.sort(newestFirst)) {
        const { incident_id: id, change } = incident;
        if (!change) continue;
        armDeadline(id, change);
        // A device tool server that restarted with the relay (DEVICE_INVENTORY) has already rolled back what
        // its journal held: take its word first, so the incident says so now and no post-check runs on a
        // device already put back. A change still pending there (or no answer) is post-checked as before.
        void serial(id, async () => {
          const status = await upstream.changeStatus(change.device, change.change_id).catch(() => undefined);
          if (status) adopt(id, status);
        })
          .then(() => postCheck(id))
          .catch(() => undefined);
      }
    },
    stop(): void {
      stopped = true;
      for (const t of timers.values()) t.cancel();
      timers.clear();
    },
  };
}

export type ConfirmedApply = ReturnType<typeof createConfirmedApply>;
