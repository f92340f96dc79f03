import type pg from 'pg';
import type { OutboxItem, OutboxStore, Outcome, StoredItem } from './types';

/**
 * The team's outbox: the `outbox` table (migration 7) shared by every relay on the database. An
 * item is committed before `add` returns; `claim` leases due items to this relay with `FOR UPDATE
 * SKIP LOCKED`, so two relays never hold one item at once, and a relay's answers are recorded only
 * while its lease is its own. `stream` keeps the pager's items apart from the audit stream's.
 */
export function createPgOutboxStore(pool: pg.Pool, stream: string, relayId: string): OutboxStore {
  return {
    async add(item: OutboxItem, now: Date): Promise<boolean> {
      const res = await pool.query(
        `INSERT INTO outbox (stream, key, kind, payload, not_before, enqueued_at, units) VALUES ($1, $2, $3, $4, $5, $5, $6)
         ON CONFLICT (stream, key) DO NOTHING`,
        [stream, item.key, item.kind, JSON.stringify(item.payload ?? null), now, item.units ?? 1],
      );
      return (res.rowCount ?? 0) > 0;
    },
    async claim(now: Date, leaseMs: number, limit: number): Promise<StoredItem[]> {
      const res = await pool.query<{ key: string; kind: string; payload: unknown; attempts: number; enqueued_at: Date }>(
        `UPDATE outbox o SET lease_owner = $2, lease_until = $3::timestamptz + ($4::integer * interval '1 millisecond')
          FROM (SELECT stream, key FROM outbox
                 WHERE stream = $1 AND state = 'pending' AND not_before <= $3
                   AND (lease_until IS NULL OR lease_until < $3)
                 ORDER BY enqueued_at, key LIMIT $5 FOR UPDATE SKIP LOCKED) due
         WHERE o.stream = due.stream AND o.key = due.key
         RETURNING o.key, o.kind, o.payload, o.attempts, o.enqueued_at`,
        [stream, relayId, now, leaseMs, limit],
      );
      return res.rows
        .map((r) => ({ key: r.key, kind: r.kind, payload: r.payload, attempts: r.attempts, enqueued_at: r.enqueued_at.toISOString() }))
        .sort((a, b) => a.enqueued_at.localeCompare(b.enqueued_at) || a.key.localeCompare(b.key));
    },
    async finish(key: string, outcome: Outcome, reason: string | undefined, now: Date): Promise<void> {
      await pool.query(
        `UPDATE outbox SET state = $3, last_error = $4, finished_at = $5, lease_owner = NULL, lease_until = NULL
          WHERE stream = $1 AND key = $2 AND lease_owner = $6 AND state = 'pending'`,
        [stream, key, outcome, reason ?? null, now, relayId],
      );
    },
    async retryAt(key: string, attempts: number, notBefore: Date, reason: string): Promise<void> {
      await pool.query(
        `UPDATE outbox SET attempts = $3, not_before = $4, last_error = $5, lease_owner = NULL, lease_until = NULL
          WHERE stream = $1 AND key = $2 AND lease_owner = $6 AND state = 'pending'`,
        [stream, key, attempts, notBefore, reason, relayId],
      );
    },
    async backlog(): Promise<number> {
      const res = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE stream = $1 AND state = 'pending'`, [stream]);
      return res.rows[0]?.n ?? 0;
    },
    async backlogUnits(): Promise<number> {
      const res = await pool.query<{ n: number }>(`SELECT COALESCE(sum(units), 0)::int AS n FROM outbox WHERE stream = $1 AND state = 'pending'`, [stream]);
      return res.rows[0]?.n ?? 0;
    },
    async nextDue(): Promise<Date | undefined> {
      const res = await pool.query<{ at: Date | null }>(
        `SELECT min(GREATEST(not_before, COALESCE(lease_until, not_before))) AS at FROM outbox WHERE stream = $1 AND state = 'pending'`,
        [stream],
      );
      return res.rows[0]?.at ?? undefined;
    },
    // The pool belongs to the relay's store: closed there.
    async close(): Promise<void> {},
  };
}
