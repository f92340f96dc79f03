import type { SleepingClock } from './clock';
import { DeviceToolError, type DeviceTools } from '../../src/core/changes/device-contract';
import { evaluateExpectations, runCaptures, type ExpectationResult } from '../../src/runbooks/expectations';
import type { CheckStep, RepairActionWorkflow, RepairStep } from '../../src/runbooks/schema-raw';
import { renderTemplate } from '../../src/runbooks/template';
import { renderCommand } from '../../src/runbooks/render-command';
import { platformOf } from '../../src/runbooks/variants';
import { errorText } from '../../src/core/error-body';
import type { RunRawOptions, StepRecord } from './engine';

/** What a step adds to the common fields of its record. */
export type StepDetail = Omit<StepRecord, 'step' | 'kind' | 'description' | 'started_at' | 'ended_at' | 'next' | 'summary'>;

/** What the steps of one run share: the RAW, its values (captures add to them), the tools and the plan's devices. */
export interface StepContext {
  raw: RepairActionWorkflow;
  vars: Record<string, string>;
  clock: SleepingClock;
  tools: DeviceTools;
  approve: RunRawOptions['approve'];
  /** The plan's other devices by role. */
  roles: Record<string, string>;
  /** A configuration change was applied. */
  changed(): void;
}

class ToolTimeout extends Error {
  override readonly name = 'ToolTimeout';
}

function withTimeout<T>(clock: SleepingClock, ms: number, work: Promise<T>, what: string): Promise<T> {
  let cancel = () => {};
  const timeout = new Promise<never>((_, reject) => {
    cancel = clock.setTimeout(() => reject(new ToolTimeout(`${what} timed out after ${ms / 1000} s`)), ms).cancel;
  });
  return Promise.race([work, timeout]).finally(() => cancel());
}

/** A step's tool error as the run records it: a known tool refusal or timeout as it is, anything else named as a failed call. */
const stepError = (e: unknown) => (e instanceof DeviceToolError || e instanceof ToolTimeout ? e.message : `tool call failed: ${errorText(e)}`);

/** A validate, collect or revalidate step on `target`: its command, retried as it says, and its expectations. */
export async function runCheck(ctx: StepContext, step: CheckStep, target: string): Promise<{ next: string; record: StepDetail }> {
  const { raw, vars, clock, tools } = ctx;
  const attempts = step.retry?.attempts ?? 1;
  let output = '';
  let command = '';
  let evaluation = { ok: false, results: [] as ExpectationResult[] };
  const captured: Record<string, string> = {};
  for (let attempt = 1; attempt <= attempts; attempt++) {
    command = renderCommand(raw, step.action.command, vars);
    try {
      output = await withTimeout(clock, step.timeout_s * 1000, tools.execCli(target, command), `exec_cli "${command}"`);
    } catch (e) {
      return { next: step.on_error, record: { device: target, command, attempts: attempt, result: 'error', error: stepError(e) } };
    }
    Object.assign(captured, runCaptures(step.capture, output, vars));
    Object.assign(vars, captured);
    evaluation = evaluateExpectations(step.expect, output, vars);
    if (evaluation.ok) {
      return { next: step.on_success, record: { device: target, command, attempts: attempt, output, expectations: evaluation.results, captured, result: 'passed' } };
    }
    if (attempt < attempts) await clock.sleep(step.retry!.interval_s * 1000);
  }
  const matched = step.failure_cases.find((c) => evaluateExpectations(c.when, output, vars).ok);
  return {
    next: matched?.next ?? step.on_failure,
    record: { device: target, command, attempts, output, expectations: evaluation.results, captured, result: 'failed' },
  };
}

/** A repair step: asks for approval, then applies on `target` (and the plan's other devices) in order. */
export async function runRepair(ctx: StepContext, step: RepairStep, target: string): Promise<{ next: string; record: StepDetail }> {
  const { raw, vars, clock, tools, roles } = ctx;
  const render = (lines: readonly string[]) => lines.map((c) => renderCommand(raw, c, vars).trim()).filter((c) => c !== '');
  const commands = render(step.action.commands);
  const platform = platformOf(vars) as keyof NonNullable<NonNullable<RepairStep['plan']>[number]['variants']> | undefined;
  const others = (step.plan ?? []).map((p) => ({ device: roles[p.device]!, commands: render((platform && p.variants?.[platform]?.commands) || p.commands) }));
  const plan = others.length ? [{ device: target, commands }, ...others] : undefined;
  const summary = renderTemplate(step.approval_summary, vars);
  const decision = await ctx.approve({ step: step.id, description: step.description, summary, device: target, commands, ...(plan ? { plan } : {}) });
  if (decision !== 'APPROVED') {
    return { next: step.on_denied, record: { device: target, commands, approval: 'DENIED', result: 'denied' } };
  }
  // One device after the other, in plan order; putting back a device already changed when a later one
  // fails is the relay's guard's (a plan is all or none there), the engine only stops and says which.
  const outputs: string[] = [];
  for (const entry of plan ?? [{ device: target, commands }]) {
    try {
      outputs.push(await withTimeout(clock, step.timeout_s * 1000, tools.configCli(entry.device, entry.commands), 'config_cli'));
    } catch (e) {
      return { next: step.on_error, record: { device: entry.device, commands: entry.commands, approval: 'APPROVED', result: 'error', error: stepError(e) } };
    }
    ctx.changed();
  }
  const output = outputs.join('\n');
  const evaluation = evaluateExpectations(step.expect, output, vars);
  return {
    next: evaluation.ok ? step.on_success : step.on_failure,
    record: { device: target, commands, approval: 'APPROVED', output, expectations: evaluation.results, result: evaluation.ok ? 'passed' : 'failed' },
  };
}
