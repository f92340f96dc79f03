import { z } from 'zod';
import type { NormalizedAlert } from './normalized-alert';

/** What every source hands the domain (the port's own type; its fields are defined with Splunk's normaliser). */
export type { NormalizedAlert };

/**
 * The `AlertSource` port: a sender's request body in, normalized alerts out. Each adapter (Splunk,
 * Alertmanager) owns its wire format; the intake and the incidents see only what is defined here.
 */

/** What the sender says of the fault: still there, or gone by itself. */
export const alertStatusSchema = z.enum(['firing', 'resolved']);
export type AlertStatus = z.infer<typeof alertStatusSchema>;

/**
 * A normalized alert as a source hands it over. The fault's key is known at once; the rest is
 * computed only when a new incident needs it, because a repeat needs nothing else and a sender
 * in a storm may send thousands (the duplicate path is measured by `npm run bench:intake`).
 */
export interface SourcedAlert {
  readonly dedup_key: string;
  normalized(): NormalizedAlert;
}

/** One alert of a sender's batch, with the sender's own reference (echoed back) and its status. */
export interface BatchAlert extends SourcedAlert {
  readonly ref: string;
  readonly status: AlertStatus;
  readonly alert_def_id: string;
  /** When the sender says a resolved alert's fault cleared (Alertmanager's `endsAt`). */
  readonly resolved_at?: string;
}

/** An alert the relay cannot take (no alert definition matches it, a mapped label is missing …). */
export const unmatchedAlertSchema = z.object({
  ref: z.string(),
  status: alertStatusSchema,
  /** The sender's name for the alert (Alertmanager's `alertname`), when it has one. */
  name: z.string().nullable(),
  reason: z.string(),
});
export type UnmatchedAlert = z.infer<typeof unmatchedAlertSchema>;

export interface SourceBatch {
  alerts: BatchAlert[];
  /** Reported back to the sender and logged; never an error for the whole batch. */
  unmatched: UnmatchedAlert[];
}

/** An adapter: the body's schema (the route validates with it) and how a valid body becomes alerts. */
export interface AlertSource<S extends z.ZodType = z.ZodType> {
  /** Its path, `POST /alerts/<name>`, and its name in logs and timelines. */
  readonly name: string;
  readonly body: S;
  read(body: z.output<S>): Promise<SourceBatch>;
}

/** What a batch sender is answered (202): per alert, what became of it. */
export const batchAnswerSchema = z.object({
  accepted: z.array(
    z.object({
      ref: z.string(),
      status: z.enum(['accepted', 'queued', 'duplicate']),
      incident_id: z.string(),
      alert_def_id: z.string(),
      session_id: z.string().nullable(),
      occurrences: z.number().int().optional(),
    }),
  ),
  resolved: z.array(
    z.object({
      ref: z.string(),
      alert_def_id: z.string(),
      /** The open incident the resolution was recorded on; null when none is open for the fault. */
      incident_id: z.string().nullable(),
    }),
  ),
  unmatched: z.array(unmatchedAlertSchema),
});
export type BatchAnswer = z.infer<typeof batchAnswerSchema>;
