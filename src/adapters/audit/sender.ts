import type { AuditEvent } from './schema';

/**
 * What a sink answers for one batch. `permanent`: the receiver refused the events themselves
 * (HTTP 400): reported, never tried again. Otherwise the batch is tried again later.
 */
export type BatchResult = { ok: true } | { ok: false; permanent: boolean; reason: string; retryAfterMs?: number };

/** One SIEM: sends a batch of events and says whether the receiver has them. */
export interface AuditSender {
  readonly sink: string;
  /** How many events one call may carry. */
  readonly batchSize: number;
  send(events: readonly AuditEvent[]): Promise<BatchResult>;
  close(): Promise<void>;
}

/** Seconds or an HTTP date, as Retry-After is written; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: Date): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
