import { SEVERITIES } from '../../runbooks/severity-scale';
import { z } from 'zod';
import { storedTraceSchema } from './stored-trace';
import { changeRecordSchema } from './change';
import { ConfigPreview } from '../../runbooks/config-preview';
import { planEntrySchema } from '../approvals/plan-lines';
import { planViewOf, type PlanView } from '../approvals/plan-view';
import { applicationStatusSchema, approvalStatusSchema, decisionChannelSchema } from '../approvals/lifecycle';

export const INCIDENT_STATES = [
  'queued',
  'running',
  'awaiting_approval',
  'approved',
  'denied',
  'resolved',
  'escalated',
  'failed',
] as const;
export const incidentStateSchema = z.enum(INCIDENT_STATES);
export type IncidentState = z.infer<typeof incidentStateSchema>;

export const TERMINAL_STATES: ReadonlySet<IncidentState> = new Set(['resolved', 'escalated', 'failed']);
export const isTerminal = (state: IncidentState) => TERMINAL_STATES.has(state);

export const DECISIONS = ['APPROVED', 'DENIED'] as const;
export type Decision = (typeof DECISIONS)[number];

/** The policy's requirement for one request: `count` distinct people from `groups` must approve. */
export const approvalRequirementSchema = z.object({
  rule: z.string(),
  groups: z.array(z.string()),
  count: z.number().int().min(1),
  reason: z.string(),
  policy_sha256: z.string(),
});
export type ApprovalRequirement = z.infer<typeof approvalRequirementSchema>;

/** One person's approval counted toward a requirement: `by` is their OPERATORS_FILE e-mail. */
export const approvalVoteSchema = z.object({ by: z.string(), name: z.string().optional(), channel: decisionChannelSchema, at: z.string() });
export type ApprovalVote = z.infer<typeof approvalVoteSchema>;

// Defined beside the plan's hash, so the approval ask can carry it without importing the incident model.
export { planEntrySchema, type PlanEntryRecord } from '../approvals/plan-lines';

/** What the agent asked the operator to approve, exactly, and where that approval stands. */
export const approvalRequestSchema = z.object({
    /**
     * This request's own id (src/core/approvals/request-id.ts): every channel shows it and sends it back
     * with a decision, so a click on an old card or a stale window never decides a newer request.
     * Empty only on records from before it existed.
     */
    request_id: z.string().default(''),
    summary: z.string(),
    device: z.string(),
    commands: z.array(z.string()),
    rollback: z.array(z.string()),
    artifact_ref: z.string().optional(),
    requested_at: z.string(),
    expires_at: z.string(),
    /** Webex card message id, as written before channels were adapters; read by the Webex adapter for old records. */
    card_message_id: z.string().optional(),
    /** Each operator channel's own id of the message that asked (channel name → id): the adapters read theirs. */
    channel_messages: z.record(z.string(), z.string()).optional(),
    /** The gate's state (src/core/approvals/lifecycle.ts); records from before it existed read as pending. */
    status: approvalStatusSchema.default('pending'),
    /**
     * SHA-256 of the canonical lines (src/core/approvals/lines.ts): shown to the human with the lines,
     * checked by the device guard. Empty only on records from before it existed.
     */
    lines_sha256: z.string().default(''),
    /** Where the humans were asked. */
    channels: z.array(z.string()).default([]),
    /** Headed runs: when the relay itself wrote the question into the operator's terminal session. */
    terminal_shown_at: z.string().nullable().default(null),
    /**
     * The dry run of the lines on the live device, computed before anyone was asked;
     * null without device tools. Absent on records from before it existed: read as "no preview".
     */
    preview: ConfigPreview.nullable().optional(),
    /** What the change policy requires before this request is approved; absent without a policy (one approver decides). */
    requirement: approvalRequirementSchema.nullable().optional(),
    /** The approvals counted toward the requirement so far, one per person, in the order they came (absent: none). */
    votes: z.array(approvalVoteSchema).optional(),
    /**
     * A change plan: the lines of every device, applied on all or on none (src/approvals/plan-lines.ts).
     * Then `commands` and `preview` are the plan grouped by device, and `lines_sha256` is the plan's hash.
     */
    plan: z.array(planEntrySchema).optional(),
  });
export type ApprovalRequest = z.infer<typeof approvalRequestSchema>;

export const approvalSchema = z.object({
  /** SKIPPED: no operator channel, treated per APPROVAL_WHEN_UNATTENDED; EXPIRED: APPROVAL_TTL passed. */
  decision: z.enum(['APPROVED', 'DENIED', 'EXPIRED', 'SKIPPED']),
  /** What the run was told: SKIPPED resolves to APPROVED or DENIED. */
  effective: z.enum(DECISIONS),
  by: z.string(),
  channel: decisionChannelSchema,
  at: z.string(),
  reason: z.string().optional(),
  commands: z.array(z.string()),
  /** Set once the agent session has been told; a restart re-sends until it is. */
  forwarded_at: z.string().nullable(),
  /** Set once the room has been told (Webex decisions); a restart posts it if not. */
  acknowledged_at: z.string().nullable().default(null),
  /** The request this decision answered (ApprovalRequest.request_id). */
  request_id: z.string().default(''),
  /** An APPROVED change not applied by then lapses (APPROVAL_APPLY_WINDOW): a new decision is needed. */
  apply_by: z.string().nullable().default(null),
});
export type Approval = z.infer<typeof approvalSchema>;

/** What the device guard did with the approved lines: claimed before the device call, so it happens once. */
export const applicationSchema = z.object({
  status: applicationStatusSchema,
  device: z.string().nullable(),
  at: z.string().nullable(),
  error: z.string().nullable(),
});
export type Application = z.infer<typeof applicationSchema>;
export const NO_APPLICATION: Application = { status: 'none', device: null, at: null, error: null };

export const outcomeSchema = z.object({
  kind: z.enum(['resolved', 'escalated', 'failed']),
  summary: z.string(),
  at: z.string(),
  /** `agent`: the summary is the model's own words (report_outcome), shown quoted and labelled as such. */
  by: z.literal('agent').optional(),
});

export const deliverySchema = z.object({
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_error: z.string().nullable(),
});

export const INCIDENT_KINDS = ['relay', 'headed'] as const;

export { SEVERITIES, type Severity } from '../../runbooks/severity-scale';

const fieldSourceSchema = z.enum(['result', 'result.device_name', 'result.host', '_raw', 'label', 'absent']);
/** Where the alert's key fields came from (src/core/incidents/normalized-alert.ts): shown so an engineer can judge them. */
// An FS's own key fields (key_fields, e.g. interface) beside the BGP three.
export const fieldSourcesSchema = z.object({ device_hostname: fieldSourceSchema, neighbor_ip: fieldSourceSchema, vrf_name: fieldSourceSchema }).catchall(fieldSourceSchema);

export const incidentSchema = z.object({
  incident_id: z.string(),
  /** relay: started by an alert, run by the relay; headed: an operator runs it in the terminal UI. */
  kind: z.enum(INCIDENT_KINDS).default('relay'),
  session_id: z.string().nullable(),
  alert_def_id: z.string(),
  device_hostname: z.string(),
  mode: z.enum(['strict', 'hybrid']),
  state: incidentStateSchema,
  created_at: z.string(),
  updated_at: z.string(),
  occurrences: z.number().int().positive(),
  last_seen: z.string(),
  warnings: z.array(z.string()),
  alert_vars: z.record(z.string(), z.string()),
  field_sources: fieldSourcesSchema.nullable().default(null),
  /** Where the run is in its RAW, as the device calls show it (display only: it decides nothing). */
  progress: z.object({ step: z.string(), index: z.number().int().nullable(), total: z.number().int(), at: z.string() }).nullable().default(null),
  /** How bad, for the list: the alert's own severity, else the fault signature's; null when neither says. */
  severity: z.enum(SEVERITIES).nullable().default(null),
  approval_request: approvalRequestSchema.nullable().default(null),
  approval: approvalSchema.nullable(),
  application: applicationSchema.default(NO_APPLICATION),
  /** The applied change while it is provisional, and how it ended (src/core/incidents/change.ts). */
  change: changeRecordSchema.nullable().default(null),
  /** A plan's changes, one per device in plan order, settled together (src/tools/plan-apply.ts); absent without a plan. */
  plan_changes: z.array(changeRecordSchema).optional(),
  outcome: outcomeSchema.nullable(),
  /** The exact prompt the run gets (relay) or the operator pasted (headed); dropped when the incident ends. */
  prompt_text: z.string().nullable().default(null),
  dedup_key: z.string(),
  delivery: deliverySchema,
  /** Where the incident's spans hang (W3C trace context); absent when tracing was off at intake. */
  trace: storedTraceSchema.nullable().optional(),
});
export type Incident = z.infer<typeof incidentSchema>;

export const timelineEntrySchema = z.looseObject({
  at: z.string(),
  type: z.string(),
  message: z.string(),
});
export type TimelineEntry = z.infer<typeof timelineEntrySchema>;

/** What `/sessions` shows: no internal bookkeeping; a plan's request also grouped by device, as people read it (plan-view.ts). */
export function publicIncident(incident: Incident): Omit<Incident, 'dedup_key' | 'prompt_text' | 'trace'> & { plan_view?: PlanView } {
  const { dedup_key: _key, prompt_text: _prompt, trace: _trace, ...rest } = incident;
  const plan = planViewOf(incident.approval_request);
  return plan ? { ...rest, plan_view: plan } : rest;
}
export type PublicIncident = ReturnType<typeof publicIncident>;
