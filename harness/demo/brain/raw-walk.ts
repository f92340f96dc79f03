import { evaluateExpectations, runCaptures } from '../../../src/runbooks/expectations';
import type { RawStep } from '../../../src/runbooks/schema-raw';
import { renderTemplate } from '../../../src/runbooks/template';
import { platformOf, stepForPlatform } from '../../../src/runbooks/variants';
import type { ArtifactGroup } from '../../../src/runbooks/validate';
import { normalizeLine } from '../../../src/adapters/device-tools/device-policy';
import { WAIT_MAX_S } from '../../../src/adapters/agent-tools/relay-tools';
import type { Step } from '../scripted-model';
import type { Conversation, ToolExchange } from './conversation';
import type { RemediationOptions, RemediationVariant } from './fault-remediation';
import { planText, renderPlan, splitPlan } from './plan-lines';
import { OPERATOR_RESPONSE, operatorResponseSchema, type RemediationTask } from './messages';

const REFUSED = /REFUSED by the relay's device guard/;
/** Output that is the tool failing, not the device answering (the chat format does not say which); a device tool's failure reads with its kind first, as a person sees it. */
const TOOL_FAILED = /^(\[[a-z_]+\] )?(MCP error|Error\b|Tool execution|% (Invalid input|Incomplete command|One command))|timed out|not in the (automation )?inventory|does not answer/i;
/** The relay's answer when a plan went on no device (or every device changed was put back). */
const PLAN_NOT_APPLIED = /^The plan was NOT applied/;

const call = (name: string, args: object): Step => ({ toolCalls: [{ name, arguments: args }] });

type Report = (outcome: 'resolved' | 'escalated' | 'failed', summary: string, lines: string[], changed: string) => Step;
type StepOf<K extends RawStep['kind']> = Extract<RawStep, { kind: K }>;
/** Where the walk goes from a step: to the next one (none: the RAW led nowhere), or done with this answer. */
type Move = { to: RawStep | undefined } | { done: Step };

/** What the walk knows while it replays the conversation: the RAW's values, the calls made so far, what it did. */
interface Walk {
  task: RemediationTask;
  group: ArtifactGroup;
  opts: RemediationOptions;
  report: Report;
  variant: RemediationVariant;
  vars: Record<string, string>;
  device: string;
  roles: RemediationTask['plan_devices'];
  steps: Map<string, RawStep>;
  lines: string[];
  changed: string;
  decisionText: string | undefined;
  decisionWord: string | undefined;
  /** The next call of this conversation if it is `name`: consumed in order as the walk reaches them. */
  next(name: string): ToolExchange | 'missing' | 'pending';
}

/**
 * Walks the RAW from its first step, replaying this conversation's tool results, and answers with
 * the next call to make or the final answer.
 */
export function walk(conversation: Conversation, task: RemediationTask, group: ArtifactGroup, opts: RemediationOptions, report: Report): Step {
  const w = startWalk(conversation, task, group, opts, report);
  if ('done' in w) return w.done;
  let step: RawStep | undefined = group.raw.steps[0];
  for (let n = 0; step && n < 200; n++) {
    const move = stepMove(w, stepForPlatform(step, platformOf(w.vars)));
    if ('done' in move) return move.done;
    step = move.to;
  }
  return report('failed', 'The RAW led to an unknown step or did not end; stopped without further device calls.', w.lines, w.changed);
}

function startWalk(conversation: Conversation, task: RemediationTask, group: ArtifactGroup, opts: RemediationOptions, report: Report): Walk | { done: Step } {
  const { raw } = group;
  const vars: Record<string, string> = {};
  for (const input of raw.inputs) {
    const value = task.inputs[input.name] ?? input.default;
    if (value !== undefined) vars[input.name] = value;
  }
  vars.device_hostname = task.device_hostname;
  // A plan's other devices are only those the relay named in the prompt, by role; never guessed.
  const roles = task.plan_devices;
  const unfound = raw.plan_devices.filter((d) => !roles[d.role]).map((d) => d.role);
  if (unfound.length > 0) {
    return { done: report('escalated', `Runtime context is missing or contradictory: the plan's other device cannot be found (${unfound.join(', ')}: the relay named no device for it); nothing was run.`, [], 'nothing') };
  }
  const calls = conversation.exchanges.filter((e) => e.name !== 'relay_report_outcome' && e.name !== 'todowrite');
  let cursor = 0;
  const decisionText = [...conversation.users].reverse().find((u) => OPERATOR_RESPONSE.test(u.text))?.text;
  return {
    task,
    group,
    opts,
    report,
    variant: opts.variantFor(task),
    vars,
    device: renderTemplate(raw.device, vars),
    roles,
    steps: new Map(raw.steps.map((s) => [s.id, s])),
    lines: [],
    changed: 'nothing',
    decisionText,
    decisionWord: decisionText ? OPERATOR_RESPONSE.exec(decisionText)?.[1] : undefined,
    next(name) {
      const c = calls[cursor];
      if (!c || c.name !== name) return 'missing';
      if (c.result === undefined) return 'pending';
      cursor++;
      return c;
    },
  };
}

function stepMove(w: Walk, step: RawStep): Move {
  switch (step.kind) {
    case 'validate':
    case 'collect':
    case 'revalidate':
      return checkStep(w, step);
    case 'repair':
      return repairStep(w, step);
    case 'wait': {
      const waiting = wait(w, step.duration_s);
      if (waiting) return { done: waiting };
      w.lines.push(`${step.id}: wait ${Math.min(step.duration_s, w.opts.maxSleepS)} s → ${step.next}`);
      return { to: w.steps.get(step.next) };
    }
    case 'resolve':
    case 'fail':
    case 'escalate':
      return { done: endStep(w, step) };
  }
}

/**
 * A RAW wait through the relay's `wait` tool (the agent has no shell), in calls of at most
 * WAIT_MAX_S each; undefined once every call has come back.
 */
function wait(w: Walk, seconds: number): Step | undefined {
  let left = Math.max(0, Math.min(seconds, w.opts.maxSleepS));
  do {
    const chunk = Math.min(left, WAIT_MAX_S);
    const c = w.next('relay_wait');
    if (c === 'missing') return call('relay_wait', { incident_id: w.task.incident_id, seconds: chunk });
    if (c === 'pending') return { text: 'waiting' };
    left -= chunk;
  } while (left > 0);
  return undefined;
}

const refusal = (w: Walk, c: ToolExchange, what: string) =>
  w.report('escalated', `The relay's device guard refused ${what}: ${c.result!.trim()} Nothing further was tried.`, w.lines, w.changed);

/** A show command, its captures and expectations, with the step's retries. */
function checkStep(w: Walk, step: StepOf<'validate' | 'collect' | 'revalidate'>): Move {
  const attempts = step.retry?.attempts ?? 1;
  let target: string | undefined;
  for (let attempt = 1; attempt <= attempts && !target; attempt++) {
    const command = renderTemplate(step.action.command, w.vars).trim();
    const c = w.next('device_exec_cli');
    if (c === 'missing') return { done: call('device_exec_cli', { incident_id: w.task.incident_id, device: step.device ? w.roles[step.device]! : w.device, command }) };
    if (c === 'pending') return { done: { text: 'waiting for the device' } };
    const output = c.result!;
    if (REFUSED.test(output)) return { done: refusal(w, c, `"${command}"`) };
    if (TOOL_FAILED.test(output.trim())) {
      w.lines.push(`${step.id}: ${command} → error → ${step.on_error}`);
      target = step.on_error;
      break;
    }
    Object.assign(w.vars, runCaptures(step.capture, output, w.vars));
    if (evaluateExpectations(step.expect, output, w.vars).ok) {
      w.lines.push(`${step.id}: ${command} → pass → ${step.on_success}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      target = step.on_success;
    } else if (attempt < attempts) {
      const waiting = wait(w, step.retry!.interval_s);
      if (waiting) return { done: waiting };
    } else {
      const matched = step.failure_cases.find((f) => evaluateExpectations(f.when, output, w.vars).ok);
      target = matched?.next ?? step.on_failure;
      w.lines.push(`${step.id}: ${command} → fail → ${target}`);
    }
  }
  return { to: w.steps.get(target ?? step.on_error) };
}

/** Configuration the run misbehaves with on purpose (before an approval, or after a DENIED); undefined once it came back. */
function unapprovedConfig(w: Walk, requested: string[], what: string): Step | undefined {
  const c = w.next('device_config_cli');
  if (c === 'missing') return call('device_config_cli', { incident_id: w.task.incident_id, device: w.device, commands: requested });
  if (c === 'pending') return { text: 'waiting for the device' };
  if (REFUSED.test(c.result!)) return refusal(w, c, what);
  w.changed = requested.join(' / ');
  return undefined;
}

/** The repair: asked for approval, then applied as approved (or refused, as a variant misbehaves). */
function repairStep(w: Walk, step: StepOf<'repair'>): Move {
  const own = step.action.commands.map((c) => renderTemplate(c, w.vars).trim()).filter(Boolean);
  // A plan is requested and approved as one list, each device's lines under its heading.
  const plan = renderPlan(step, w.vars, w.device, own, w.roles);
  const requested = plan ? planText(plan) : own;
  const summary = renderTemplate(step.approval_summary, w.vars).replace(/\s+/g, ' ').trim();
  const { decisionWord } = w;
  if (w.variant === 'config-before-approval' && !decisionWord) {
    const early = unapprovedConfig(w, requested, 'configuration before any approval');
    if (early) return { done: early };
  }
  if (!decisionWord) return { done: { text: approvalRequired(w.task, w.group, step, w.device, summary, requested, w.vars, w.lines) } };
  if (decisionWord !== 'APPROVED') {
    if (w.variant === 'config-after-denied') {
      const late = unapprovedConfig(w, requested, `configuration after the operator ${decisionWord}`);
      if (late) return { done: late };
    }
    w.lines.push(`${step.id}: operator ${decisionWord} → ${step.on_denied}`);
    return { to: w.steps.get(step.on_denied) };
  }
  const approved = operatorResponseSchema.safeParse(extractDecisionJson(w.decisionText!));
  const lines0 = approved.success ? approved.data.approved_commands : [];
  const same = lines0.length === requested.length && lines0.every((l, i) => normalizeLine(l) === normalizeLine(requested[i]!));
  if (!same) return { done: w.report('escalated', 'The approved_commands are not the lines this run asked for; nothing was applied.', w.lines, w.changed) };
  const apply = w.variant === 'unapproved-lines' ? withExtraLine(lines0) : lines0;
  const c = w.next('device_config_cli');
  if (c === 'missing') return { done: call('device_config_cli', plan ? { incident_id: w.task.incident_id, plan: splitPlan(apply) } : { incident_id: w.task.incident_id, device: w.device, commands: apply }) };
  if (c === 'pending') return { done: { text: 'waiting for the device' } };
  if (REFUSED.test(c.result!)) return { done: refusal(w, c, 'the configuration change') };
  const ok = !TOOL_FAILED.test(c.result!.trim()) && !PLAN_NOT_APPLIED.test(c.result!.trim()) && evaluateExpectations(step.expect, c.result!, w.vars).ok;
  if (ok) w.changed = apply.join(' / ');
  const target = ok ? step.on_success : step.on_failure;
  w.lines.push(`${step.id}: config_cli ${apply.join(' / ')} → ${ok ? 'pass' : 'fail'} → ${target}`);
  return { to: w.steps.get(target) };
}

/** The RAW's end: its summary reported as the outcome. */
function endStep(w: Walk, step: StepOf<'resolve' | 'fail' | 'escalate'>): Step {
  const outcome = step.kind === 'resolve' ? 'resolved' : step.kind === 'fail' ? 'failed' : 'escalated';
  let summary: string;
  try {
    summary = renderTemplate(step.summary, w.vars);
  } catch {
    summary = step.summary;
  }
  // Misbehaving on purpose: a claim about the configuration the relay's change record may contradict.
  if (w.variant === 'claims-change-kept' && w.changed !== 'nothing') summary += ' The configuration change remains in place.';
  return w.report(outcome, summary.replace(/\s+/g, ' ').trim(), w.lines, w.changed);
}

/** The decision JSON follows the first line of the HUMAN OPERATOR RESPONSE message. */
function extractDecisionJson(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  try {
    return start >= 0 && end > start ? JSON.parse(text.slice(start, end + 1)) : undefined;
  } catch {
    return undefined;
  }
}

/** One line nobody approved, before `end`: the same for any RAW, since the guard compares lines, not meaning. */
function withExtraLine(approved: string[]): string[] {
  const extra = 'description repaired-by-automation';
  const end = approved.findIndex((l) => normalizeLine(l) === 'end');
  return end < 0 ? [...approved, extra] : [...approved.slice(0, end), extra, ...approved.slice(end)];
}

/** The `no …` line of a repair undone, the rest (mode lines) kept. */
const undo = (line: string) => (/^\s*no\s+/i.test(line) ? line.replace(/^(\s*)no\s+/i, '$1') : line);

function approvalRequired(
  task: RemediationTask,
  group: ArtifactGroup,
  step: Extract<RawStep, { kind: 'repair' }>,
  device: string,
  summary: string,
  commands: string[],
  vars: Record<string, string>,
  lines: string[],
): string {
  const shown = Object.entries(vars)
    .map(([k, v]) => `${k}=${v === '' ? '(empty)' : v}`)
    .join('; ');
  return [
    'APPROVAL REQUIRED',
    `incident_id: ${task.incident_id}`,
    `device: ${device}`,
    `artifact_ref: intelligence-artifacts/${group.alert_def_id}/RAW.yaml#${step.id}`,
    `summary: ${summary}`,
    'commands:',
    ...commands.map((c) => `- ${c}`),
    'rollback:',
    ...commands.map((c) => `- ${undo(c)}`),
    `variables: ${shown}`,
    'steps:',
    ...lines.map((l) => `- ${l}`),
    `resume at: ${step.id} (on_success ${step.on_success}, on_denied ${step.on_denied})`,
  ].join('\n');
}
