import { describeExpectation, evaluateExpectations, runCaptures } from '../../runbooks/expectations';
import type { CheckStep, Expectation, RawStep, RepairActionWorkflow, RepairStep } from '../../runbooks/schema-raw';
import { FormatError } from '../../runbooks/formats';
import { capturedNames, renderCommand } from '../../runbooks/render-command';
import type { TemplateVars } from '../../runbooks/template';
import { platformOf, stepForPlatform } from '../../runbooks/variants';
import type { TimelineEntry } from '../incidents/model';
import { entries, isEntry } from '../events/timeline-entries';
import { errorText } from '../error-body';

/**
 * The RAW's own proof that a repair took: the `revalidate` step its repair step leads to (through
 * any `wait` steps), as this device's platform runs it. The relay runs it itself after a change, so
 * a change is confirmed by what the router says, never by what the model says.
 */
export interface PostCheckPlan {
  step: string;
  command: string;
  /** The RAW's waits before the check, in seconds. */
  waitS: number;
  attempts: number;
  intervalS: number;
  /** The repair step's own confirm window, when the RAW sets one. */
  confirmWithinS?: number;
  check(output: string): { ok: boolean; failed: string[] };
}

/** Why a repair has no post-check the relay can run; a person confirms it, or it rolls back at the deadline. */
export type NoPostCheck = { reason: string };

/**
 * The alert's values a RAW's templates can read: its declared inputs only (their defaults when the
 * alert has none). Other alert fields, a value under a captured name among them, never reach a check
 * or a command the relay runs.
 */
export function rawVariables(raw: RepairActionWorkflow, vars: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const input of raw.inputs) {
    const v = vars[input.name] ?? input.default;
    if (v !== undefined) values[input.name] = v;
  }
  return values;
}

/**
 * The values the run captured on the device so far, read by the relay from the device's own outputs
 * on its timeline (each output that answered a RAW step's command, through that step's captures):
 * what a post-check reads of the run (an interface name, a local AS) comes from the router, never
 * from the model.
 */
export function capturedOnDevice(raw: RepairActionWorkflow, vars: Readonly<Record<string, string | undefined>>, timeline: readonly TimelineEntry[]): Record<string, string> {
  let values = rawVariables(raw, vars);
  const platform = platformOf(values);
  const steps = raw.steps.map((s) => stepForPlatform(s, platform));
  for (const entry of timeline) {
    if (!isEntry(entry, entries.deviceExec) || typeof entry.command !== 'string' || entry.by === 'post-check') continue;
    for (const step of steps) {
      if (step.kind !== 'validate' && step.kind !== 'collect' && step.kind !== 'revalidate') continue;
      try {
        if (renderCommand(raw, step.action.command, values).trim() !== entry.command.trim()) continue;
        values = { ...values, ...runCaptures(step.capture ?? [], String(entry.output ?? ''), values) };
      } catch {
        continue; // a command that needs a value not captured yet, or one that fails its format
      }
      break;
    }
  }
  return values;
}

/** `vars`: what capturedOnDevice returns (the inputs, and the values captured on the device). */
export function planPostCheck(raw: RepairActionWorkflow, vars: Readonly<Record<string, string | undefined>>): PostCheckPlan | NoPostCheck {
  const captured = capturedNames(raw);
  const values = rawVariables(raw, vars);
  for (const [k, v] of Object.entries(vars)) if (v !== undefined && captured.has(k)) values[k] ??= v;
  const platform = platformOf(values);
  const byId = new Map(raw.steps.map((s) => [s.id, stepForPlatform(s, platform)] as const));
  const repair = raw.steps.map((s) => byId.get(s.id)!).find((s) => s.kind === 'repair');
  if (!repair || repair.kind !== 'repair') return { reason: 'the RAW has no repair step' };
  let waitS = 0;
  let step: RawStep | undefined = byId.get(repair.on_success);
  for (let hops = 0; step?.kind === 'wait' && hops < raw.steps.length; hops++) {
    waitS += step.duration_s;
    step = byId.get(step.next);
  }
  if (!step || step.kind !== 'revalidate') return { reason: `the repair step's success path reaches no revalidate step` };
  return checkOfStep(raw, repair, step, vars, waitS);
}

/** One revalidate step as the relay runs it after `repair`, with the values the run has (`vars`, as planPostCheck takes them). */
export function checkOfStep(raw: RepairActionWorkflow, repair: RepairStep, step: CheckStep, vars: Readonly<Record<string, string | undefined>>, waitS: number): PostCheckPlan | NoPostCheck {
  const captured = capturedNames(raw);
  const values = rawVariables(raw, vars);
  for (const [k, v] of Object.entries(vars)) if (v !== undefined && captured.has(k)) values[k] ??= v;
  let command: string;
  try {
    command = renderCommand(raw, step.action.command, values).trim();
  } catch (error) {
    // A value that fails its format is never sent: a person confirms the change, or the deadline puts it back.
    if (error instanceof FormatError) return { reason: `the post-check command was not run: ${error.message}` };
    // A command that reads a value captured during the run: the relay does not have it.
    return { reason: `the post-check command needs a value only the run has (${errorText(error)})` };
  }
  const expect: readonly Expectation[] = step.expect;
  if (expect.length === 0) return { reason: `the revalidate step ${step.id} has no expectations` };
  try {
    for (const e of expect) describeExpectation(e, values);
  } catch (error) {
    // An expectation naming a value the run never captured on the device: it could only fail.
    return { reason: `the post-check's expectations need a value the device has not shown (${errorText(error)})` };
  }
  const capture = step.capture ?? [];
  return {
    step: step.id,
    command,
    waitS,
    attempts: step.retry?.attempts ?? 1,
    intervalS: step.retry?.interval_s ?? 0,
    ...(repair.confirm_within_s !== undefined ? { confirmWithinS: repair.confirm_within_s } : {}),
    check(output) {
      try {
        const seen: TemplateVars = { ...values, ...runCaptures(capture, output, values) };
        const result = evaluateExpectations(expect, output, seen);
        return { ok: result.ok, failed: result.results.filter((r) => !r.ok).map((r) => r.check) };
      } catch (error) {
        return { ok: false, failed: [`the check could not be evaluated: ${errorText(error)}`] };
      }
    },
  };
}
