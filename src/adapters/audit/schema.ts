import { z } from 'zod';

/**
 * One audit event: what the relay tells the team's SIEM (Splunk HEC, syslog). Defined once here;
 * the derivation fills it, both senders carry it as is. It never holds a secret or a line of a
 * change, only the lines' SHA-256; every text in it is either the relay's own or an identifier.
 */
export const AUDIT_TYPES = [
  'decision',
  'acknowledge',
  'apply',
  'confirm',
  'rollback',
  'policy.verdict',
  'escalation',
  'auth.failed',
  'config.changed',
  'evidence.exported',
] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
/** Small scalar facts (rule names, change ids, HTTP methods): never an object that could carry more. */
const detailValue = z.union([z.string().max(300), z.number(), z.boolean(), z.null()]);

export const auditEventSchema = z.strictObject({
  /** Stable for what happened (the same timeline entry gives the same id): receivers dedup on it. */
  id: z.string().regex(/^[0-9a-f]{32}$/),
  time: z.iso.datetime({ offset: true }),
  type: z.enum(AUDIT_TYPES),
  /** Which relay saw it (RELAY_ID, else the host name). */
  relay: z.string().min(1).max(200),
  incident_id: z.string().max(64).nullable(),
  /**
   * The evidence bundle's `manifest.content_sha256` as the bundle stood at this event (made at
   * `time`); `evidence.exported` carries the exact hash of the copy that was handed out.
   */
  evidence_sha256: sha256.nullable(),
  device: z.string().max(200).nullable(),
  request_id: z.string().max(100).nullable(),
  lines_sha256: sha256.nullable(),
  /** Who: a person's name or e-mail, `relay` for the relay's own acts, `agent` for the run. */
  actor: z.string().max(200).nullable(),
  channel: z.string().max(100).nullable(),
  /** What it came to: APPROVED, DENIED, confirmed, rolled_back, allow, escalated, 401 … */
  outcome: z.string().max(100).nullable(),
  detail: z.record(z.string().max(60), detailValue),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;

/** The sinks the relay can send to, by the name `/metrics` and `/health` use. */
export const AUDIT_SINKS = ['splunk_hec', 'syslog'] as const;
export type AuditSink = (typeof AUDIT_SINKS)[number];

/** How far an incident's audit events have got, for `/ui` and the tray. */
export const auditDeliverySchema = z.object({
  /** `none`: no SIEM is configured; `sent`: every event reached every sink; `failed`: one was refused for good. */
  state: z.enum(['none', 'pending', 'sent', 'failed']),
  events: z.number().int().nonnegative(),
  pending: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
});
export type AuditDelivery = z.infer<typeof auditDeliverySchema>;
