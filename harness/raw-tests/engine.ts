import type { Logger } from 'pino';
import { realTimeClock, type SleepingClock } from './clock';
import type { DeviceTools } from '../../src/core/changes/device-contract';
import type { ExpectationResult } from '../../src/runbooks/expectations';
import type { FaultSignature } from '../../src/runbooks/schema-fs';
import type { RawStep, RepairActionWorkflow } from '../../src/runbooks/schema-raw';
import { renderTemplate, TemplateError } from '../../src/runbooks/template';
import { checkFormat, resolveFaultVariables } from '../../src/runbooks/variables';
import { FormatError } from '../../src/runbooks/formats';
import { renderCommand } from '../../src/runbooks/render-command';
import { platformOf, stepForPlatform } from '../../src/runbooks/variants';
import { findPlanDevices, type AddressBook } from '../../src/runbooks/plan-devices';
import { runCheck, runRepair, type StepContext } from './engine-steps';
import { errorText } from '../../src/core/error-body';

export type Decision = 'APPROVED' | 'DENIED';
export type RunOutcome = 'resolved' | 'escalated' | 'failed';

export interface ApprovalRequest {
  step: string;
  description: string;
  /** The RAW's approval summary, rendered. */
  summary: string;
  device: string;
  commands: string[];
  /** A plan: every device's lines, the incident's own first, approved once (absent: `device` alone). */
  plan?: Array<{ device: string; commands: string[] }>;
}

export interface StepRecord {
  step: string;
  kind: RawStep['kind'];
  description: string;
  started_at: string;
  ended_at: string;
  device?: string;
  command?: string;
  commands?: string[];
  attempts?: number;
  output?: string;
  error?: string;
  expectations?: ExpectationResult[];
  captured?: Record<string, string>;
  approval?: Decision;
  result: 'passed' | 'failed' | 'error' | 'denied' | 'done' | 'terminal';
  next?: string;
  summary?: string;
}

export interface RunRawOptions {
  raw: RepairActionWorkflow;
  /** With the FS, variables are joined with the log line's captures and contradictions escalate. */
  fs?: FaultSignature;
  /** device_hostname plus the alert's alert_vars. */
  vars: Readonly<Record<string, string | undefined>>;
  rawMessage?: string | null;
  tools: DeviceTools;
  approve: (req: ApprovalRequest) => Promise<Decision>;
  clock?: SleepingClock;
  logger?: Logger;
  /** Called after every step, for live progress. */
  onStep?: (record: StepRecord) => void;
  /** Guards against a workflow that loops. */
  maxSteps?: number;
  /** The inventory's addresses, for the RAW's `plan_devices` (plan-devices.ts); without it a plan's devices are not found. */
  addressBook?: AddressBook;
}

export interface RunRawResult {
  outcome: RunOutcome;
  /** The terminal step reached; absent when the run stopped before its first step. */
  terminal_step?: string;
  summary: string;
  path: StepRecord[];
  vars: Record<string, string>;
  config_changes: number;
}

const OUTCOME: Record<'resolve' | 'fail' | 'escalate', RunOutcome> = { resolve: 'resolved', fail: 'failed', escalate: 'escalated' };

/** The run's values: the FS's variables from the alert (or the alert's values as given), then the RAW's inputs checked. */
function runValues(opts: RunRawOptions): { vars: Record<string, string>; problems: string[] } {
  let vars: Record<string, string> = {};
  const problems: string[] = [];
  if (opts.fs) {
    const resolved = resolveFaultVariables(opts.fs, opts.vars, opts.rawMessage);
    vars = resolved.vars;
    problems.push(...resolved.problems);
  } else {
    for (const [k, v] of Object.entries(opts.vars)) if (v !== undefined) vars[k] = v;
  }
  for (const input of opts.raw.inputs) {
    const value = vars[input.name] ?? input.default;
    if (value === undefined || (value === '' && input.required)) {
      if (input.required) problems.push(`required input ${input.name} is missing`);
      continue;
    }
    vars[input.name] = value;
    if (value !== '' && !checkFormat(input.format, value)) problems.push(`input ${input.name} "${value}" is not a valid ${input.format}`);
  }
  return { vars, problems };
}

/**
 * Runs a RAW against a device-tool interface: renders templates, checks expectations,
 * follows transitions, asks `approve` before every config_cli and records each step.
 * It is the test harness for artifacts and the reference for strict mode; it never
 * improvises: anything the RAW does not cover ends the run.
 */
export async function runRaw(opts: RunRawOptions): Promise<RunRawResult> {
  const { raw, tools, approve } = opts;
  const clock = opts.clock ?? realTimeClock();
  const iso = () => clock.now().toISOString();
  const path: StepRecord[] = [];
  let changes = 0;

  const { vars, problems } = runValues(opts);
  const stop = (outcome: RunOutcome, summary: string, terminal?: string): RunRawResult => ({
    outcome,
    ...(terminal ? { terminal_step: terminal } : {}),
    summary,
    path,
    vars,
    config_changes: changes,
  });
  if (problems.length > 0) {
    // Missing or contradictory runtime context: escalate, never guess a repair.
    return stop('escalated', `Runtime context is missing or contradictory: ${problems.join('; ')}`);
  }

  const steps = new Map(raw.steps.map((s) => [s.id, s]));
  const maxSteps = opts.maxSteps ?? 100;
  let current: RawStep | undefined = raw.steps[0];
  let device: string;
  try {
    device = renderCommand(raw, raw.device, vars);
  } catch (e) {
    if (e instanceof FormatError) return stop('escalated', `Runtime context is not usable: ${e.message}; nothing was run`);
    return stop('failed', `Artifact error: device template: ${errorText(e)}`);
  }
  // The plan's other devices, found from the alert's values and the inventory, never named by anyone.
  const roles: Record<string, string> = {};
  const notFound: string[] = [];
  for (const f of findPlanDevices(raw, vars, device, opts.addressBook)) {
    if ('device' in f) roles[f.role] = f.device;
    else notFound.push(`${f.role}: ${f.problem}`);
  }
  if (notFound.length > 0) return stop('escalated', `Runtime context is missing or contradictory: the plan's other device cannot be found (${notFound.join('; ')}); nothing was run`);
  const on = (role: string | undefined) => (role ? roles[role]! : device);
  const ctx: StepContext = { raw, vars, clock, tools, approve, roles, changed: () => void (changes += 1) };

  const finish = (record: StepRecord) => {
    path.push(record);
    opts.logger?.info({ step: record.step, result: record.result, next: record.next }, 'raw step');
    opts.onStep?.(record);
  };

  for (let n = 0; current; n++) {
    if (n >= maxSteps) return stop('failed', `Workflow did not end within ${maxSteps} steps`);
    const step: RawStep = stepForPlatform(current, platformOf(vars));
    const base = { step: step.id, kind: step.kind, description: step.description, started_at: iso() };
    let next: string;
    try {
      switch (step.kind) {
        case 'resolve':
        case 'fail':
        case 'escalate': {
          let summary: string;
          try {
            summary = renderTemplate(step.summary, vars);
          } catch {
            summary = step.summary;
          }
          finish({ ...base, ended_at: iso(), result: 'terminal', summary });
          return stop(OUTCOME[step.kind], summary, step.id);
        }
        case 'wait':
          await clock.sleep(step.duration_s * 1000);
          next = step.next;
          finish({ ...base, ended_at: iso(), result: 'done', next });
          break;
        case 'repair': {
          const r = await runRepair(ctx, step, device);
          next = r.next;
          finish({ ...base, ...r.record, ended_at: iso(), next });
          break;
        }
        case 'validate':
        case 'collect':
        case 'revalidate': {
          const r = await runCheck(ctx, step, on(step.device));
          next = r.next;
          finish({ ...base, ...r.record, ended_at: iso(), next });
        }
      }
    } catch (e) {
      if (e instanceof FormatError) {
        // Checked before the run too; a value that reaches a command unchecked is refused here, nothing sent.
        finish({ ...base, ended_at: iso(), result: 'error', error: e.message });
        return stop('escalated', `Runtime context is not usable: ${e.message}; nothing was run`);
      }
      if (e instanceof TemplateError) {
        finish({ ...base, ended_at: iso(), result: 'error', error: e.message });
        return stop('failed', `Artifact error in step ${step.id}: ${e.message}`);
      }
      throw e;
    }
    current = steps.get(next);
    if (!current) return stop('failed', `Artifact error: step ${step.id} leads to unknown step ${next}`);
  }
  return stop('failed', 'Workflow has no steps');

}
