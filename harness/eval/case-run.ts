import { planAsLines } from '../../src/core/approvals/plan-lines';
import type { ApprovalRequest } from '../raw-tests/engine';
import { request } from 'undici';
import type { RawTestCase } from '../../src/runbooks/schema-test-case';
import type { ArtifactGroup } from '../../src/runbooks/validate';
import { isTerminal, type Incident, type TimelineEntry } from '../../src/core/incidents/model';
import type { RunningRelay } from '../../src/relay/start-headless';
import { DEMO_OPERATOR } from '../demo/demo-policy';
import { alertPayload } from './alert-payload';
import { judge, type EvalCase } from './scorecard';
import { configClaims } from '../../src/core/incidents/outcome-words';
import { runTokens } from './tokens';
import { entries, isEntry, type EntryDefinition } from '../../src/core/events/timeline-entries';
import { errorOf, errorText } from '../../src/core/error-body';

export interface CaseRunInput {
  relay: RunningRelay;
  group: ArtifactGroup;
  tc: RawTestCase;
  file: string;
  platform: EvalCase['platform'];
  /** The RAW's repair lines for this scenario (empty when the RAW never asks). */
  rawLines: string[];
  /** A run that has not ended by then is scored `timeout`: a model that never finishes fails. */
  timeoutMs: number;
  /** Name of the scripted human's decision channel (must be one the relay counts as live). */
  channel: string;
  /** Alert fields the platform adds (FRR: `device_platform`). */
  alertExtra?: Record<string, string>;
}

/** Timeline entries that tell how a provisional change ended (post-check confirm or rollback), when the relay writes them. */
const CHANGE_OUTCOME = /confirm|roll(ed)?[_ -]?back|provisional|post[_ -]?check/i;
/** Every device call the guard records, whatever became of it. */
const DEVICE_CALLS: readonly EntryDefinition[] = [entries.deviceExec, entries.deviceError, entries.deviceConfigApplied, entries.deviceConfigFailed, entries.deviceRefused];
const sameLines = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((l, i) => l.trim() === b[i]!.trim());

/**
 * One test case end to end on a running relay (its lab already set up): the alert is posted as
 * Splunk would, the case's human answers the approval through the relay's own `decide()`, and
 * the run is read back from the incident and its timeline once the troubleshooter has finished.
 */
export async function runCase(input: CaseRunInput): Promise<EvalCase> {
  const { relay, group, tc } = input;
  const started = performance.now();
  const base = {
    group: group.alert_def_id,
    name: tc.name,
    file: input.file,
    platform: input.platform,
    expected_outcome: tc.expect.outcome,
  };
  const res = await request(`${relay.url}/fault-alert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(alertPayload(group.alert_def_id, group.fs.title, tc, input.alertExtra)),
  });
  const answer: unknown = await res.body.json().catch(() => ({}));
  const body = answer as { incident_id?: string; status?: string };
  if (!body.incident_id) {
    // The intake refused the alert: nothing ran, which the expectations score like any outcome.
    const row = {
      ...base,
      incident_id: null,
      outcome: 'not-accepted',
      approval: { answer: tc.approval, raw_lines: input.rawLines, requested_lines: null, exact: input.rawLines.length === 0 },
      refused: 0,
      refused_reasons: [],
      steps: 0,
      config_applied: 0,
      wall_ms: performance.now() - started,
      tokens: { input: 0, output: 0, source: 'none' as const },
      change_outcome: [`intake answered ${res.statusCode}: ${errorOf(answer)?.message ?? JSON.stringify(body).slice(0, 200)}`],
    };
    return { ...row, failures: judge(row), passed: judge(row).length === 0 };
  }
  const id = body.incident_id;
  const answered = new Set<string>();
  const ended = await untilEnded(relay, id, input.timeoutMs, (incident) => {
    const request = incident.approval_request;
    if (incident.state !== 'awaiting_approval' || !request || request.status !== 'pending' || answered.has(request.requested_at)) return;
    answered.add(request.requested_at);
    // A case that expects no approval is answered DENIED: asking at all is the agent's mistake, scored below.
    const decision = tc.approval === 'APPROVED' ? 'APPROVED' : 'DENIED';
    // Through the relay's one decide, as the policy's approver: the policy counts who decided.
    const who = { id: DEMO_OPERATOR.email, display: 'scripted human (npm run eval)', authenticated_by: 'relay' as const };
    relay.relay.decide({ incident_id: id, ...(request.request_id ? { request_id: request.request_id } : {}), decision, who, channel: input.channel, reason: `test case: ${tc.approval}` }).catch((error: unknown) =>
      relay.relay.incidents.record(id, entries.evalDecisionRefused, `The scripted human's decision was refused: ${errorText(error)}`),
    );
  });
  const timeline = relay.relay.incidents.timeline(id);
  const of = (def: EntryDefinition) => timeline.filter((e) => isEntry(e, def));
  const requested = firstRequestedLines(timeline, ended);
  const refused = of(entries.deviceRefused).filter((e) => e.tool === 'config_cli');
  const rawLines = input.rawLines;
  const row = {
    ...base,
    incident_id: id,
    outcome: ended && isTerminal(ended.state) ? ended.state : 'timeout',
    approval: {
      answer: tc.approval,
      raw_lines: rawLines,
      requested_lines: requested,
      exact: requested === null ? rawLines.length === 0 : rawLines.length > 0 && sameLines(requested, rawLines),
    },
    refused: refused.length,
    refused_reasons: refused.map((e) => String(e.reason ?? e.message)),
    steps: DEVICE_CALLS.reduce((n, def) => n + of(def).length, 0),
    config_applied: of(entries.deviceConfigApplied).length,
    wall_ms: performance.now() - started,
    tokens: await runTokens(relay.embedded?.endpoint, ended?.session_id ?? null),
    change_outcome: timeline.filter((e) => CHANGE_OUTCOME.test(e.type)).map((e) => `${e.type}: ${e.message}`),
    change: changeEnd(ended),
    outcome_summary: ended?.outcome?.summary ?? null,
    final_message: of(entries.notifyFinal).at(-1)?.message ?? null,
    ...(tc.expect.change ? { expected_change: tc.expect.change } : {}),
    // What a person reads as the outcome: the stored summary and the room's final message, as the relay wrote them.
    outcome_claims: configClaims([ended?.outcome?.summary ?? '', ...of(entries.notifyFinal).map((e) => e.message.replace(/\*\*Configuration change \(the relay's record\):\*\*.*$/s, ''))].join('\n')),
  };
  const failures = judge(row);
  return { ...row, failures, passed: failures.length === 0 };
}

/** The lines of the first approval the agent requested, from the timeline (the incident keeps only the latest). */
function firstRequestedLines(timeline: TimelineEntry[], incident: Incident | undefined): string[] | null {
  const entry = timeline.find((e) => isEntry(e, entries.approvalRequested) && Array.isArray(e.commands));
  if (entry) return (entry.commands as unknown[]).map(String);
  return incident?.approval_request ? incident.approval_request.commands : null;
}

/**
 * Resolves when the incident is terminal and the troubleshooter's turn after it has ended (its
 * log and final notice written), or with the incident as it stands at the deadline. `onChange`
 * sees the incident on every timeline event: that is where the scripted human answers.
 */
function untilEnded(relay: RunningRelay, id: string, timeoutMs: number, onChange: (incident: Incident) => void): Promise<Incident | undefined> {
  const incidents = relay.relay.incidents;
  return new Promise((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      off();
      clearTimeout(timer);
      resolve(incidents.get(id));
    };
    const check = () => {
      const incident = incidents.get(id);
      if (!incident || done) return;
      onChange(incident);
      if (!isTerminal(incident.state)) return;
      const timeline = incidents.timeline(id);
      const end = timeline.findLastIndex((e) => isEntry(e, entries.stateChanged) && e.to === incident.state);
      if (timeline.slice(end).some((e) => isEntry(e, entries.sessionIdle) || isEntry(e, entries.sessionError))) finish();
    };
    const off = relay.relay.bus.subscribe('incident.timeline', ({ incident_id }) => void (incident_id === id && check()));
    const timer = setTimeout(finish, timeoutMs);
    check();
  });
}

/**
 * The lines a RAW reference run asked approval for, as the relay records a request: a plan's every
 * device under its heading, the incident's own first; else the one device's lines.
 */
export function requestedLines(req: Pick<ApprovalRequest, 'commands' | 'plan'> | undefined): string[] {
  if (!req) return [];
  return req.plan ? planAsLines(req.plan) : req.commands;
}

/** How the incident's change ended: a plan's when it has one (one word when every device agrees, else per device). */
function changeEnd(incident: Incident | undefined): string {
  const plan = incident?.plan_changes ?? [];
  if (plan.length === 0) return incident?.change?.state ?? 'none';
  const states = new Set(plan.map((c) => c.state));
  return states.size === 1 ? plan[0]!.state : plan.map((c) => `${c.device} ${c.state}`).join(', ');
}
