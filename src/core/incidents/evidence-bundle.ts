import { linesSha256 } from '../approvals/lines';
import { planSha256 } from '../approvals/plan-lines';
import { planViewOf, type PlanView } from '../approvals/plan-view';
import { ConfigPreview, rollbackLines } from '../../runbooks/config-preview';
import type { Incident, TimelineEntry } from './model';
import { redactDeep, redactText } from './evidence-redact';
import { policyOf } from './evidence-policy';
import { canonicalJson, hashPart, MANIFEST_ENCODING, partsOf, sha256Hex } from './evidence-manifest';
import { EVIDENCE_FORMAT, GUARD_EXEC_LIMIT, type DeviceOutput, type EvidenceBundle, type EvidenceContent as Content } from './evidence-schema';
import { entries, isEntry, type EntryDefinition } from '../events/timeline-entries';

export * from './evidence-schema';
export { canonicalJson, sha256Hex, verifyEvidenceBundle, MANIFEST_ENCODING } from './evidence-manifest';

/** Alert variables whose name says they hold a credential are never written out (as in the session log). */
const SECRET_NAME = /pass(word)?|secret|token|api[-_]?key|authorization|cookie|credential/i;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function outputsOf(timeline: readonly TimelineEntry[], device: string, scrub: (s: string) => string): DeviceOutput[] {
  return timeline
    .filter((e) => isEntry(e, entries.deviceExec) && typeof e.command === 'string')
    .map((e) => {
      const raw = typeof e.output === 'string' ? e.output : '';
      const cleaned = redactText(raw, scrub);
      return {
        at: e.at,
        device: str(e.device) ?? device,
        command: redactText(String(e.command), scrub).text,
        output: cleaned.text,
        // The guard cuts with a trailing …, the post-check without one: at the limit, more may have been printed.
        truncated: raw.length >= GUARD_EXEC_LIMIT,
        redactions: cleaned.redactions,
        by: str(e.by),
      };
    });
}

const CHANGE_TYPES: ReadonlySet<string> = new Set(
  [entries.policyRechecked, entries.changeFingerprintChecked, entries.changeFingerprintMismatch, entries.deviceConfigApplied, entries.deviceConfigFailed, entries.deviceConfigInterrupted, entries.deviceChangePending, entries.deviceChangeConfirmed, entries.deviceChangeRolledBack].map((d) => d.name),
);

/** How the change ended: the confirmed-apply entries when there are any, else what the guard recorded. */
function changeOf(incident: Incident, timeline: readonly TimelineEntry[], scrub: (s: string) => string): Content['change'] {
  const events = timeline.filter((e) => CHANGE_TYPES.has(e.type));
  const applied = events.find((e) => isEntry(e, entries.deviceConfigApplied));
  const last = (def: EntryDefinition) => events.filter((e) => isEntry(e, def)).at(-1);
  const pending = last(entries.deviceChangePending);
  const confirmed = last(entries.deviceChangeConfirmed);
  const rolledBack = last(entries.deviceChangeRolledBack);
  const failed = last(entries.deviceConfigFailed);
  const interrupted = last(entries.deviceConfigInterrupted);
  // The latest of confirmed / rolled back decides; a pending change with neither is still provisional.
  const ended = [confirmed, rolledBack].filter((e): e is TimelineEntry => e !== undefined).sort((a, b) => a.at.localeCompare(b.at)).at(-1);
  const reason = str(ended?.reason) ?? null;
  const by = str(ended?.by) ?? null;
  let result: Content['change']['result'] = 'not_applied';
  let summary = 'No change was applied.';
  // The confirmed-apply entries are worded for people already ("Change on R1 rolled back: post-check failed").
  if (ended && isEntry(ended, entries.deviceChangeRolledBack)) {
    result = ended.state === 'rollback_failed' ? 'rollback_failed' : 'rolled_back';
    summary = ended.message;
  } else if (ended && isEntry(ended, entries.deviceChangeConfirmed)) {
    result = 'confirmed';
    summary = ended.message;
  } else if (pending) {
    result = 'pending_confirmation';
    summary = `applied, not yet confirmed${str(pending.deadline) ? `: rolled back unless confirmed by ${String(pending.deadline)}` : ''}`;
  } else if (applied || incident.application.status === 'applied') {
    result = 'applied';
    summary = `applied on ${str(applied?.device) ?? incident.application.device ?? incident.device_hostname}`;
  } else if (failed && failed.reached !== false) {
    result = 'apply_failed';
    summary = `the device refused or failed the change: ${failed.message}`;
  } else if (interrupted) {
    result = 'interrupted';
    summary = interrupted.message;
  }
  // A plan's own entry says how it ended on every device at once ("Plan … rolled back: R1 …; R2 …").
  const plan = timeline.filter((e) => e.type === 'plan.confirmed' || e.type === 'plan.rolled_back' || e.type === 'plan.failed').at(-1);
  if (plan) {
    const lost = Array.isArray(plan.results) && plan.results.some((r) => (r as { state?: unknown }).state === 'rollback_failed');
    result = plan.type === 'plan.confirmed' ? 'confirmed' : plan.type === 'plan.failed' ? 'apply_failed' : lost ? 'rollback_failed' : 'rolled_back';
    summary = plan.message;
  }
  const changeEntry = ended ?? pending;
  return {
    result,
    summary: redactText(summary, scrub).text,
    device: str(applied?.device) ?? str(changeEntry?.device) ?? incident.application.device,
    applied_at: applied?.at ?? incident.application.at,
    applied_lines: Array.isArray(applied?.commands) ? (applied.commands as unknown[]).map((l) => redactText(String(l), scrub).text) : [],
    device_answer: typeof applied?.output === 'string' ? redactText(applied.output, scrub).text : null,
    change_id: str(changeEntry?.change_id),
    deadline: str(pending?.deadline) ?? str(changeEntry?.deadline),
    by,
    reason,
    events: events.map((e) => ({ at: e.at, type: e.type, message: redactText(e.message, scrub).text })),
    fingerprint_checks: fingerprintChecksOf(timeline, scrub),
  };
}

/** The no-overwrite checks of the applies, as the guard recorded them. */
function fingerprintChecksOf(timeline: readonly TimelineEntry[], scrub: (s: string) => string): Content['change']['fingerprint_checks'] {
  return timeline
    .filter((e) => isEntry(e, entries.changeFingerprintChecked) || isEntry(e, entries.changeFingerprintMismatch))
    .map((e) => ({
      result: isEntry(e, entries.changeFingerprintMismatch) ? 'mismatch' : e.match === true ? 'match' : 'unconfirmed',
      at: e.at,
      device: str(e.device) ?? '',
      before_sha256: str(e.before_sha256) ?? '',
      now_sha256: str(e.now_sha256),
      changed: Array.isArray(e.changed) ? (e.changed as unknown[]).map((l) => redactText(String(l), scrub).text) : [],
    }));
}

/** The plan grouped by device, every line and dry run redacted as the request's own lines are. */
function planOf(view: PlanView | null, scrub: (s: string) => string): PlanView | null {
  if (!view) return null;
  const text = (lines: string[]) => lines.map((l) => redactText(l, scrub).text);
  return { ...view, devices: view.devices.map((d) => ({ ...d, lines: text(d.lines), preview: d.preview ? (ConfigPreview.safeParse(redactDeep(d.preview, scrub)).data ?? null) : null, rollback: text(d.rollback) })) };
}

function requestOf(incident: Incident, scrub: (s: string) => string): Content['approval_request'] {
  const request = incident.approval_request;
  if (!request) return null;
  const lines = request.commands.map((l) => redactText(l, scrub));
  const preview = request.preview;
  return {
    request_id: request.request_id,
    summary: redactText(request.summary, scrub).text,
    device: request.device,
    lines: lines.map((l) => l.text),
    lines_sha256: request.lines_sha256,
    // A plan's hash is over every device's lines (plan-lines.ts), not over the block they are read as.
    lines_sha256_matches: request.lines_sha256 !== '' && (request.plan?.length ? planSha256(request.plan) : linesSha256(request.commands)) === request.lines_sha256,
    lines_redacted: lines.some((l) => l.redactions > 0),
    rollback: request.rollback.map((l) => redactText(l, scrub).text),
    relay_rollback: rollbackLines(ConfigPreview.safeParse(preview).data).map((l) => redactText(l, scrub).text),
    artifact_ref: request.artifact_ref ?? null,
    requested_at: request.requested_at,
    expires_at: request.expires_at,
    status: request.status,
    preview: preview === undefined || preview === null ? null : redactDeep(preview, scrub),
    plan: planOf(planViewOf(request), scrub),
  };
}


export interface EvidenceInput {
  incident: Incident;
  timeline: readonly TimelineEntry[];
  /** When the bundle was made. */
  now: Date;
  /** The relay's secret scrubber (its own secrets, in every encoding); device secrets are always redacted. */
  scrub?: (text: string) => string;
}

/**
 * Pure: the incident and its timeline in, the bundle out. Show outputs before the first applied
 * change are the evidence before it, the rest after it; every text is redacted before it is hashed.
 */
export function buildEvidenceBundle(input: EvidenceInput): EvidenceBundle {
  const { incident, timeline } = input;
  const scrub = input.scrub ?? ((s: string) => s);
  const firstApplied = timeline.findIndex((e) => isEntry(e, entries.deviceConfigApplied));
  const split = firstApplied === -1 ? timeline.length : firstApplied;
  const approval = incident.approval;
  const content: Content = {
    format: EVIDENCE_FORMAT,
    generated_at: input.now.toISOString(),
    incident: {
      incident_id: incident.incident_id,
      kind: incident.kind,
      alert_def_id: incident.alert_def_id,
      device_hostname: incident.device_hostname,
      mode: incident.mode,
      state: incident.state,
      severity: incident.severity,
      created_at: incident.created_at,
      updated_at: incident.updated_at,
      outcome: incident.outcome ? { ...incident.outcome, summary: redactText(incident.outcome.summary, scrub).text } : null,
      warnings: incident.warnings.map((w) => redactText(w, scrub).text),
      alert_vars: Object.fromEntries(
        Object.entries(incident.alert_vars)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => [k, SECRET_NAME.test(k) ? '[redacted]' : redactText(v, scrub).text]),
      ),
    },
    approval_request: requestOf(incident, scrub),
    decision: approval
      ? { request_id: approval.request_id, decision: approval.decision, effective: approval.effective, by: approval.by, channel: approval.channel, at: approval.at, reason: approval.reason ? redactText(approval.reason, scrub).text : null }
      : null,
    policy: policyOf(incident, timeline),
    before: outputsOf(timeline.slice(0, split), incident.device_hostname, scrub),
    after: outputsOf(timeline.slice(split), incident.device_hostname, scrub),
    change: changeOf(incident, timeline, scrub),
  };
  return {
    ...content,
    manifest: {
      algorithm: 'sha256',
      encoding: MANIFEST_ENCODING,
      parts: partsOf(content).map((p) => ({ path: p.path, kind: p.kind, sha256: hashPart(p.kind, p.value) })),
      content_sha256: sha256Hex(canonicalJson(content)),
    },
  };
}
