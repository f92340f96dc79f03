/**
 * The contract between the outbox (`outbox.ts`), where its items are kept (`file-store.ts` on a
 * laptop, `pg-store.ts` on a team) and whoever sends them (a pager, a SIEM).
 */

/** One thing to deliver. `key` is stable for what it means: a second enqueue with it is dropped. */
export interface OutboxItem {
  /** Dedup key: never sent twice for one key (e.g. `<incident>:page:<step>`). Up to 400 characters. */
  key: string;
  /** What the sender does with it (e.g. `pagerduty`, `syslog`): free text for the sender. */
  kind: string;
  /** JSON-serialisable; stored as is, so never put a secret here (the sender adds credentials). */
  payload: unknown;
  /** How many things the item carries (a batch's events), for the backlog's count; default 1. */
  units?: number;
}

/** An item as the store hands it to the sender. */
export interface StoredItem extends OutboxItem {
  /** Sends tried so far (0 on the first). */
  attempts: number;
  enqueued_at: string;
}

/** What a sender answers for one item. */
export type SendResult =
  | { ok: true }
  /** `permanent`: the receiver refused the item itself (HTTP 400): reported, never tried again. */
  | { ok: false; permanent: boolean; reason: string; retryAfterMs?: number };

export type Outcome = 'sent' | 'failed';

export interface OutboxStore {
  /** Persists the item before resolving; false when its key was seen before (nothing stored). */
  add(item: OutboxItem, now: Date): Promise<boolean>;
  /**
   * Items due at `now` that no other sender holds, leased to this one for `leaseMs`: on a team
   * each item is claimed by exactly one relay at a time (a dead relay's lease runs out).
   */
  claim(now: Date, leaseMs: number, limit: number): Promise<StoredItem[]>;
  /** The item is finished: sent, or failed for good (kept for dedup and for the report). */
  finish(key: string, outcome: Outcome, reason: string | undefined, now: Date): Promise<void>;
  /** Try again at `notBefore`; `attempts` is the count so far. */
  retryAt(key: string, attempts: number, notBefore: Date, reason: string): Promise<void>;
  /** Items not yet finished. */
  backlog(): Promise<number>;
  /** What the unfinished items carry, summed (their `units`). */
  backlogUnits(): Promise<number>;
  /** When the next pending item is due (undefined: none pending that this store knows of). */
  nextDue(): Promise<Date | undefined>;
  close(): Promise<void>;
}
