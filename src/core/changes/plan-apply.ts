import { failedRecord, intentRecord, pendingRecord, planResults, planResultText } from './plan-settle';
import { armDeadline, atDeadline, confirmAll, planContext, postCheck, putBack, recordRolledBack, retryPutBack, rollbackAll, TRIES, type PlanApplyDeps, type PlanContext } from './plan-together';
import { entries, isEntry } from '../events/timeline-entries';
import type { ApplyExpect } from './device-contract';
import type { ChangeRecord } from '../incidents/change';
import { errorText } from '../error-body';

export type { PlanApplyDeps } from './plan-together';

export interface PlanStep {
  device: string;
  commands: string[];
  expect: ApplyExpect;
}
/** `changedBefore`: how many devices had taken their lines before the one that failed (then the approval is spent whatever `error` was). */
export type PlanApplied = { ok: true; changes: ChangeRecord[]; output: string } | { ok: false; error: unknown; changedBefore: number; failed_device: string; reason: string; put_back: ChangeRecord[] };

/**
 * Every device's change, in plan order. Each device is named on the incident, under the change id the
 * relay gives it, and made durable before its first line is sent; its record is the server's once
 * the device took it. So a relay or a device tool server that dies in between leaves a record of
 * every device the plan's lines went to, and the server can be asked about each. A device that
 * refuses or fails puts back every one changed before it.
 */
async function applySteps(ctx: PlanContext, id: string, steps: readonly PlanStep[], withinS: number): Promise<PlanApplied> {
  const { incidents, upstream } = ctx.deps;
  const applied: ChangeRecord[] = [];
  const outputs: string[] = [];
  for (const step of steps) {
    const intent = intentRecord(step.device, withinS, ctx.deps.clock.now());
    try {
      incidents.update(id, () => ({ plan_changes: [...applied, intent] }));
      await ctx.deps.durable?.();
      const r = await upstream.configProvisional(step.device, step.commands, withinS, { ...step.expect, changeId: intent.change_id });
      applied.push(pendingRecord(r.change, withinS, ctx.now()));
      outputs.push(`${step.device}:\n${r.output}`);
      incidents.update(id, () => ({ plan_changes: [...applied] }));
      await ctx.deps.durable?.();
    } catch (error) {
      return failedOn(ctx, id, steps, step.device, error, applied, intent);
    }
  }
  return { ok: true, changes: applied, output: outputs.join('\n\n') };
}

/**
 * A device refused or failed: what its server said of it is written (or, when its answer never came,
 * the server is asked), every device changed before it is put back and read back, and the incident
 * names the device and why.
 */
async function failedOn(ctx: PlanContext, id: string, steps: readonly PlanStep[], device: string, error: unknown, applied: ChangeRecord[], intent: ChangeRecord): Promise<PlanApplied> {
  const reason = errorText(error).slice(0, 500);
  const before = ctx.current(id);
  const mine = before.find((c) => c.change_id === intent.change_id);
  const settled = mine ? failedRecord(mine, error, ctx.now()) : undefined;
  if (settled) ctx.write(id, before, before.map((c) => (c === mine ? settled : c)));
  let told = false;
  // Written with the last device's end when the put-back ends the plan, so nobody reads every device ended without it.
  const tell = (all: readonly ChangeRecord[]) => {
    if (told) return;
    told = true;
    const request_id = ctx.requestOf(id);
    const waiting = all.filter((c) => c.state === 'pending').map((c) => c.device);
    const text = all.length === 0 ? 'no device had been changed' : waiting.length === 0 ? planResultText(all) : `${planResultText(all.filter((c) => c.state !== 'pending')) || 'none yet'}; still to put back (asked again until the device tool server answers): ${waiting.join(', ')}`;
    const failing = all.find((c) => c.change_id === intent.change_id);
    const put = all.filter((c) => c !== failing);
    ctx.deps.incidents.record(id, entries.planFailed, `Plan ${request_id} failed on ${device}: ${reason}. Put back: ${text}`.slice(0, 2000), { request_id, devices: steps.map((s) => s.device), failed_device: device, reason, put_back: planResults(put), ...(failing ? { failed_device_result: planResults([failing])[0] } : {}) });
    ctx.deps.tell?.(id, `**${id}**: plan ${request_id} failed on ${device} (${reason.slice(0, 200)}); ${text}.`);
  };
  const why = `the plan failed on ${device}`;
  // The plan's end, once its last device has: the failure, then (when any device took lines) the plan-wide rolled-back line.
  const ended = (all: ChangeRecord[]) => {
    tell(all);
    if (all.some((c) => c.state !== 'not_applied')) recordRolledBack(ctx, id, all, 'requested', why);
  };
  if (!ctx.current(id).some((c) => c.state === 'pending')) ended(ctx.current(id));
  const all = await putBack(ctx, id, 'requested', why, ended);
  tell(all);
  if (all.some((c) => c.state === 'pending')) retryPutBack(ctx, id, 'requested', why);
  return { ok: false, error, changedBefore: applied.length, failed_device: device, reason, put_back: all.filter((c) => c.change_id !== intent.change_id) };
}

/** Whether the plan's apply finished (its `plan.applied` entry is on the timeline for the approved request). */
function applyFinished(ctx: PlanContext, id: string): boolean {
  const request_id = ctx.requestOf(id);
  return ctx.deps.incidents.timeline(id).some((e) => isEntry(e, entries.planApplied) && e.request_id === request_id);
}

/**
 * After a restart. A plan whose apply the relay did not finish (it died between two devices, or
 * before it recorded the plan applied) was never on every device as one change: it is put back on
 * every device it reached. A plan partly confirmed is confirmed on the rest (it was decided); a plan
 * still pending is post-checked again.
 */
function recoverPlans(ctx: PlanContext): void {
  const { incidents, owns } = ctx.deps;
  for (const incident of incidents.values()) {
    const changes = incident.plan_changes ?? [];
    const id = incident.incident_id;
    if (!owns(id) || !changes.some((c) => c.state === 'pending')) continue;
    if (!applyFinished(ctx, id)) {
      const taken = changes.filter((c) => !c.unanswered).length;
      void ctx.serial(id, () => rollbackAll(ctx, id, 'requested', `the relay stopped before the plan was applied on every device (${taken} of ${incident.approval_request?.plan?.length ?? changes.length} changed)`)).catch(() => undefined);
      continue;
    }
    armDeadline(ctx, id);
    if (changes.some((c) => c.state === 'confirmed')) void ctx.serial(id, () => confirmAll(ctx, id, 'post_check')).catch(() => undefined);
    else void ctx.serial(id, () => atDeadline(ctx, id, TRIES)).then(() => postCheck(ctx, id)).catch(() => undefined);
  }
}

/**
 * A plan's changes go on every device or on none, and end together: confirmed when every device's
 * post-check passes (or a person confirms), otherwise rolled back on every device, each read back by
 * the device tool server. Each device's own deadline (its journal, or a NETCONF confirmed commit)
 * puts it back if the relay is gone; after a restart the relay finishes what the plan's record says.
 */
export function createPlanApply(deps: PlanApplyDeps) {
  const ctx = planContext(deps);
  const { incidents, logger } = deps;
  return {
    apply: (id: string, steps: readonly PlanStep[], withinS: number) => applySteps(ctx, id, steps, withinS),
    /** The plan went on every device: record it, arm the deadline, run the post-checks. */
    started(id: string, changes: ChangeRecord[], linesSha256: string): void {
      incidents.update(id, () => ({ plan_changes: changes }));
      const request_id = ctx.requestOf(id);
      const devices = changes.map((c) => c.device);
      incidents.record(id, entries.planApplied, `Plan ${request_id} applied provisionally on ${devices.join(', ')}: confirmed together when every post-check passes, else put back on every device`, { request_id, devices, lines_sha256: linesSha256, changes: changes.map((c) => ({ device: c.device, change_id: c.change_id, deadline: c.deadline })) });
      armDeadline(ctx, id);
      void postCheck(ctx, id).catch((error: unknown) => logger.error({ incident_id: id, err: error }, 'plan post-check stopped'));
    },
    /** A person keeps the plan: every device's change is confirmed. `changeId` is any of the plan's changes. */
    async confirmByPerson(id: string, changeId: string, person: string): Promise<{ ok: boolean; message: string }> {
      if (!ctx.current(id).some((c) => c.change_id === changeId)) return { ok: false, message: `change ${changeId} is not one of ${id}'s plan` };
      return ctx.serial(id, () => confirmAll(ctx, id, 'person', person));
    },
    has: (id: string) => ctx.current(id).length > 0,
    recover: () => recoverPlans(ctx),
    stop(): void {
      ctx.stopped = true;
      for (const t of ctx.timers.values()) t.cancel();
      ctx.timers.clear();
    },
  };
}

export type PlanApply = ReturnType<typeof createPlanApply>;
