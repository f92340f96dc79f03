/**
 * A durable outbox: things the relay must deliver to a remote service (a pager, a SIEM) are kept
 * before anyone is told they were taken, then sent by one loop in the background, so a slow or
 * dead receiver never delays an alert's 202 or a decision, and nothing is lost across a restart.
 *
 * Use:
 *
 *   const outbox = createOutbox({
 *     name: 'pager',                                   // in logs, /health and /metrics
 *     store: openFileOutboxStore(dataDir, 'pager'),    // laptop; team: createPgOutboxStore(pool, 'pager', relayId)
 *     send: async (item) => httpSendResult(...),       // one try of one item → SendResult
 *     clock, logger,
 *     onFinished: (item, outcome, reason) => ...,      // optional: sent, or failed for good
 *   });
 *   outbox.start();
 *   await outbox.enqueue({ key: 'INC-1:page:0', kind: 'pagerduty', payload: {...} }); // stored (fsync / COMMIT) on return
 *   outbox.status();   // { backlog, backlog_units, sent, failed, last_error? } for /health and /metrics
 *   await outbox.stop();
 *
 * Guarantees:
 * - `enqueue` resolves once the item is durable (file: appended and fsynced; team: committed);
 *   it answers `{ queued: false }` for a key seen before, sent or not: one key is sent once.
 *   Callers on a hot path do not await it: `void outbox.enqueue(item).catch(log)`.
 * - The sender's `SendResult`: ok → finished `sent`; permanent (HTTP 400 and other 4xx) →
 *   finished `failed` with its reason, never retried; otherwise retried with jittered backoff,
 *   waiting at least `retryAfterMs` (capped at `maxRetryAfterMs`), and failed for good after
 *   `maxAttempts` tries. `httpSendResult` (http-result.ts) maps an HTTP answer for you.
 * - On a team each item is claimed under a lease by exactly one relay (`FOR UPDATE SKIP
 *   LOCKED`); a relay that dies while sending leaves its lease to run out, then another sends.
 * - Between a send and its record there is a window (a kill -9 there) where the item is sent again
 *   after the restart: give receivers an idempotency key (PagerDuty `dedup_key`, Opsgenie `alias`).
 */
import type { Logger } from 'pino';
import { jitteredBackoff, wait, type BackoffPolicy } from '../../core/backoff';
import { systemClock, type Clock } from '../../core/clock';
import type { OutboxItem, OutboxStore, Outcome, SendResult, StoredItem } from './types';
import { errorText } from '../../core/error-body';

export type { OutboxItem, OutboxStore, SendResult, StoredItem } from './types';
export { httpSendResult, networkSendResult, parseRetryAfter } from './http-result';

export interface OutboxOptions {
  name: string;
  store: OutboxStore;
  send: (item: StoredItem) => Promise<SendResult>;
  logger: Logger;
  clock?: Clock;
  backoff?: BackoffPolicy;
  /** Tries before an item fails for good (default 10). */
  maxAttempts?: number;
  /** The longest `Retry-After` honoured (default 10 minutes): a receiver cannot park an item for a day. */
  maxRetryAfterMs?: number;
  /** How long a claimed item is this sender's alone (default 2 minutes). */
  leaseMs?: number;
  /** How often the store is looked at with nothing known to be due (default 2 s: other relays' items, leases). */
  pollMs?: number;
  onFinished?: (item: StoredItem, outcome: Outcome, reason?: string) => void;
}

export interface OutboxStatus {
  name: string;
  backlog: number;
  /** What the backlog's items carry (their `units`: a batch's events). */
  backlog_units: number;
  sent: number;
  failed: number;
  /** The last failure of a send (transient or not), without anything the item held. */
  last_error?: { at: string; key: string; reason: string; permanent: boolean };
}

export type Outbox = ReturnType<typeof createOutbox>;

export function createOutbox(opts: OutboxOptions) {
  const clock = opts.clock ?? systemClock;
  const leaseMs = opts.leaseMs ?? 120_000;
  const pollMs = opts.pollMs ?? 2_000;
  const counts = { sent: 0, failed: 0, backlog: 0, backlog_units: 0 };
  const delivery = createDelivery(opts, clock, counts);
  const { deliver } = delivery;
  let running: Promise<void> | undefined;
  let stopping: AbortController | undefined;
  let wake: AbortController | undefined;
  /** Set when something may have become due while the loop was busy: it looks again before waiting. */
  let dirty = false;
  /** Resolves when the loop has nothing due: tests wait on it instead of sleeping. */
  let idleWaiters: Array<() => void> = [];

  const refreshBacklog = async () => {
    counts.backlog = await opts.store.backlog().catch(() => counts.backlog);
    counts.backlog_units = await opts.store.backlogUnits().catch(() => counts.backlog_units);
  };

  async function loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      dirty = false;
      let claimed: StoredItem[] = [];
      try {
        claimed = await opts.store.claim(clock.now(), leaseMs, 20);
        for (const item of claimed) {
          if (signal.aborted) break;
          await deliver(item);
        }
      } catch (error) {
        opts.logger.warn({ outbox: opts.name, err_message: errorText(error) }, 'outbox store not available; trying again');
      }
      await refreshBacklog();
      if (claimed.length > 0 || dirty) continue;
      for (const resolve of idleWaiters.splice(0)) resolve();
      const due = await opts.store.nextDue().catch(() => undefined);
      const untilDue = due ? Math.max(0, due.getTime() - clock.now().getTime()) : pollMs;
      wake = new AbortController();
      if (dirty) continue;
      const both = AbortSignal.any([signal, wake.signal]);
      await wait(Math.min(untilDue, pollMs), clock, both);
    }
  }

  const poke = () => {
    dirty = true;
    wake?.abort();
  };

  return {
    /** Stores the item durably; `{ queued: false }` when its key was enqueued before. */
    async enqueue(item: OutboxItem): Promise<{ queued: boolean }> {
      const queued = await opts.store.add(item, clock.now());
      if (queued) {
        counts.backlog += 1;
        counts.backlog_units += item.units ?? 1;
        poke();
      }
      return { queued };
    },
    start(): void {
      if (running) return;
      stopping = new AbortController();
      void refreshBacklog();
      running = loop(stopping.signal);
    },
    /** Looks at the store now rather than at the next poll (e.g. on another relay's notice). */
    kick(): void {
      poke();
    },
    /** Resolves the next time the loop finds nothing due. */
    idle(): Promise<void> {
      return new Promise((resolve) => {
        idleWaiters.push(resolve);
        poke();
      });
    },
    status(): OutboxStatus {
      const lastError = delivery.lastError();
      return { name: opts.name, ...counts, ...(lastError ? { last_error: lastError } : {}) };
    },
    async stop(): Promise<void> {
      stopping?.abort();
      await running;
      running = undefined;
      for (const resolve of idleWaiters.splice(0)) resolve();
      idleWaiters = [];
      await opts.store.close();
    },
  };
}

/** One try of one item and its record: sent, failed for good (a permanent answer, or too many tries), or due again after backoff. */
function createDelivery(opts: OutboxOptions, clock: Clock, counts: { sent: number; failed: number }) {
  const backoff = opts.backoff ?? jitteredBackoff({ baseMs: 1_000, maxMs: 5 * 60_000 });
  const maxAttempts = opts.maxAttempts ?? 10;
  const maxRetryAfter = opts.maxRetryAfterMs ?? 10 * 60_000;
  let lastError: OutboxStatus['last_error'];
  return {
    lastError: () => lastError,
    async deliver(item: StoredItem): Promise<void> {
      let result: SendResult;
      try {
        result = await opts.send(item);
      } catch (error) {
        result = { ok: false, permanent: false, reason: `sender error: ${errorText(error)}` };
      }
      const now = clock.now();
      if (result.ok) {
        await opts.store.finish(item.key, 'sent', undefined, now);
        counts.sent += 1;
        opts.onFinished?.(item, 'sent');
        return;
      }
      const attempts = item.attempts + 1;
      lastError = { at: now.toISOString(), key: item.key, reason: result.reason, permanent: result.permanent };
      if (result.permanent || attempts >= maxAttempts) {
        const reason = result.permanent ? result.reason : `gave up after ${attempts} tries: ${result.reason}`;
        await opts.store.finish(item.key, 'failed', reason, now);
        counts.failed += 1;
        opts.logger.warn({ outbox: opts.name, key: item.key, reason }, 'outbox item failed for good');
        opts.onFinished?.(item, 'failed', reason);
        return;
      }
      const delay = Math.max(backoff(item.attempts), Math.min(result.retryAfterMs ?? 0, maxRetryAfter));
      opts.logger.info({ outbox: opts.name, key: item.key, reason: result.reason, retry_in_ms: delay }, 'outbox send will be tried again');
      await opts.store.retryAt(item.key, attempts, new Date(now.getTime() + delay), result.reason);
    }
  };
}
