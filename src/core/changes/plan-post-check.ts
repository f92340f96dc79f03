import type { DeviceTools } from './device-contract';
import type { RawStep, RepairActionWorkflow } from '../../runbooks/schema-raw';
import { platformOf, stepForPlatform } from '../../runbooks/variants';
import type { Clock } from '../clock';
import type { Incidents } from '../incidents/service';
import { checkOfStep, rawVariables, type NoPostCheck, type PostCheckPlan } from './post-check';
import { entries } from '../events/timeline-entries';
import { errorText } from '../error-body';

/** One revalidate step of a plan's post-check, on the device its `device:` role names (else the incident's). */
export type DeviceCheck = PostCheckPlan & { device: string };
export type PlanChecks = { checks: DeviceCheck[]; confirmWithinS?: number } | NoPostCheck;

/**
 * A plan's post-checks: the revalidate steps the repair's success path reaches, through `wait` steps
 * and from one revalidate step to the next, each on its own device. Every one must pass.
 */
export function planChecks(raw: RepairActionWorkflow, vars: Readonly<Record<string, string | undefined>>, devices: { own: string; roles: ReadonlyMap<string, string> }): PlanChecks {
  const platform = platformOf(rawVariables(raw, vars));
  const byId = new Map(raw.steps.map((s) => [s.id, stepForPlatform(s, platform)] as const));
  const repair = raw.steps.map((s) => byId.get(s.id)!).find((s) => s.kind === 'repair');
  if (!repair || repair.kind !== 'repair') return { reason: 'the RAW has no repair step' };
  const checks: DeviceCheck[] = [];
  let waitS = 0;
  let step: RawStep | undefined = byId.get(repair.on_success);
  for (let hops = 0; step && hops < raw.steps.length; hops++) {
    if (step.kind === 'wait') {
      waitS += step.duration_s;
      step = byId.get(step.next);
      continue;
    }
    if (step.kind !== 'revalidate') break;
    const device = step.device ? devices.roles.get(step.device) : devices.own;
    if (!device) return { reason: `the post-check ${step.id} runs on ${step.device ?? '?'}, which the relay did not find for this incident` };
    const check = checkOfStep(raw, repair, step, vars, waitS);
    if ('reason' in check) return check;
    checks.push({ ...check, device });
    waitS = 0;
    step = byId.get(step.on_success);
  }
  if (checks.length === 0) return { reason: `the repair step's success path reaches no revalidate step` };
  return { checks, ...(repair.confirm_within_s !== undefined ? { confirmWithinS: repair.confirm_within_s } : {}) };
}

/** Runs every check on its device (waits, retries): 'none' without checks, else whether all passed and what failed. */
export async function runPlanChecks(
  deps: { incidents: Incidents; upstream: Pick<DeviceTools, 'execCli'>; clock: Clock; maxPaceS?: number; stopped(): boolean },
  incidentId: string,
  plan: PlanChecks,
): Promise<'none' | 'stopped' | { ok: boolean; failed: string[] }> {
  if ('reason' in plan) {
    deps.incidents.record(incidentId, entries.devicePostCheck, `No post-check the relay can run for the plan (${plan.reason}): a person confirms it (POST /incidents/${incidentId}/confirm, /ui or the tray), or every device rolls back at its deadline`);
    return 'none';
  }
  const pace = (s: number) => Math.max(0, Math.min(s, deps.maxPaceS ?? s)) * 1000;
  const delay = (ms: number) => new Promise<void>((resolve) => deps.clock.setTimeout(resolve, ms));
  for (const check of plan.checks) {
    await delay(pace(check.waitS));
    let failed: string[] = [];
    let passed = false;
    for (let attempt = 1; attempt <= check.attempts && !passed; attempt++) {
      if (attempt > 1) await delay(pace(check.intervalS));
      if (deps.stopped()) return 'stopped';
      let output: string;
      try {
        output = await deps.upstream.execCli(check.device, check.command);
      } catch (error) {
        failed = [`${check.device}: ${check.command} failed: ${errorText(error).slice(0, 200)}`];
        continue;
      }
      deps.incidents.record(incidentId, entries.deviceExec, `${check.device}# ${check.command} (post-check ${attempt}/${check.attempts})`, { device: check.device, command: check.command, output: output.slice(0, 20_000), by: 'post-check' });
      const verdict = check.check(output);
      passed = verdict.ok;
      failed = verdict.failed.map((f) => `${check.device}: ${f}`);
    }
    if (!passed) return { ok: false, failed };
  }
  return { ok: true, failed: [] };
}
