import type pg from 'pg';
import type { Logger } from 'pino';
import { jitteredBackoff } from '../../core/backoff';
import type { Incident, TimelineEntry } from '../../core/incidents/model';
import { StoreUnavailableError } from '../../core/incidents/store';
import { databaseErrorMessage } from './database';
import { commitOnce } from './commit-once';
import { commitIsolated } from './commit-isolated';
import { createCommitRetry, IncidentIdConflictError } from './commit-retry';
import { isRefusedWrite, WriteRefusedError, type SetAside } from './isolate';
import { createWriteQueue } from './write-queue';
import type { Batch, Written } from './write-batch';
import { errorText } from '../../core/error-body';

export { IncidentIdConflictError } from './commit-retry';

export interface JournalOptions {
  pool: pg.Pool;
  relayId: string;
  logger: Logger;
  /** Incidents the database holds: their puts are updates, the rest inserts. */
  persisted: ReadonlySet<string>;
  /** Repeats counted here and not yet committed, per incident (the store's; read when a batch is taken). */
  added: ReadonlyMap<string, number>;
  /** Whether a queued put changes only the count and last sighting (read when a batch is taken). */
  countOnly(incidentId: string): boolean;
  /** How long a lazy write (a duplicate) may wait to share a commit with others. */
  lazyFlushMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /**
   * Memory follows what a batch wrote, at once (before anything is queued after it); what it
   * returns is waited for before the next batch and before the flush resolves.
   */
  committed(batch: Batch, written: Written): Promise<void> | undefined;
  /** A write the database refused alone, after the rest of its batch was committed: not tried again. */
  setAside?(write: SetAside): void;
}

/**
 * The team store's write-behind queue: puts coalesced per incident, timeline lines in order,
 * evictions; one transaction per batch, one batch at a time. A batch that fails goes back in
 * front of what was written since and is retried with backoff until the database is back; one
 * the database refuses for what it holds is split, and only the writes refused alone are set aside.
 */
export function createJournal(opts: JournalOptions) {
  const { pool, relayId: me, logger } = opts;
  const queue = createWriteQueue(opts);
  const { pendingCount } = queue;
  const health = createCommitRetry({
    logger,
    delay: jitteredBackoff({ baseMs: opts.retryBaseMs ?? 250, maxMs: opts.retryMaxMs ?? 5_000 }),
    retry: () => void commit().catch(() => {}),
    pendingCount,
  });
  let lazyTimer: NodeJS.Timeout | null = null;
  /** Writes the database refused for what they held, set aside since start, and the last one's reason. */
  let refusedWrites = 0;
  let lastRefused: string | undefined;
  let chain: Promise<void> = Promise.resolve();

  async function commitPending(): Promise<void> {
    if (pendingCount() === 0) return;
    const batch = queue.take();
    let written: Written;
    try {
      written = await commitOnce(pool, batch, me);
    } catch (error) {
      queue.flying(undefined);
      if (!isRefusedWrite(error)) {
        queue.restore(batch);
        throw error;
      }
      return isolate(batch);
    }
    queue.landed();
    const following = opts.committed(batch, written);
    queue.flying(undefined);
    health.reachable();
    await following;
    if (written.collisions.length) {
      throw new IncidentIdConflictError(`incidents ${written.collisions.join(', ')} were not stored: the database holds other incidents under their ids`);
    }
  }

  /** A batch the database refused for what it holds: the writes refused alone are set aside (the store is told), the rest committed. */
  async function isolate(batch: Batch): Promise<void> {
    const { setAside, following, collisions } = await commitIsolated({ pool, me, queue, committed: opts.committed }, batch);
    health.reachable();
    await Promise.all(following);
    refusedWrites += setAside.length;
    for (const s of setAside) {
      lastRefused = `${s.incidentId ?? 'a write'}: ${s.reason}`;
      logger.error({ incident_id: s.incidentId, err_message: s.reason }, `the database refused a write of ${s.incidentId ?? 'the store'}; set aside, the rest committed: ${s.reason}`);
      opts.setAside?.(s);
    }
    const refused = setAside.map((s) => `${s.incidentId ?? 'a write'} (${s.reason})`);
    if (collisions.length) refused.push(`${collisions.join(', ')} (the database holds other incidents under their ids)`);
    if (refused.length) throw new WriteRefusedError(`the incident database refused to store ${refused.join('; ')}: set aside, the other writes were committed`);
  }

  /** Commits everything queued so far, after any commit already running. */
  function commit(): Promise<void> {
    if (lazyTimer) clearTimeout(lazyTimer);
    lazyTimer = null;
    const run = chain.then(commitPending);
    chain = run.catch((error: unknown) => health.failed(error));
    return run.catch((error: unknown) => {
      if (error instanceof IncidentIdConflictError || error instanceof WriteRefusedError) throw new StoreUnavailableError(error.message);
      throw new StoreUnavailableError(`the incident database is not reachable: ${databaseErrorMessage(error)}`);
    });
  }

  /** One commit for everything written in the same turn (a state change is a put and a line or two). */
  let commitQueued = false;
  const soon = (lazy: boolean) => {
    if (lazy) {
      lazyTimer ??= setTimeout(() => void commit().catch(() => {}), opts.lazyFlushMs ?? 100);
      lazyTimer.unref?.();
      return;
    }
    if (commitQueued) return;
    commitQueued = true;
    queueMicrotask(() => {
      commitQueued = false;
      void commit().catch(() => {});
    });
  };

  return {
    put(incident: Incident, lazy: boolean) {
      queue.put(incident);
      soon(lazy);
    },
    append(incidentId: string, entry: TimelineEntry) {
      queue.append(incidentId, entry);
      soon(false);
    },
    evict: (incidentId: string) => queue.evict(incidentId),
    /** Only the count of this incident changed here (`added`): written as an increment. */
    bump(incidentId: string) {
      queue.bump(incidentId);
      soon(false);
    },
    /** An incident folded into another: nothing queued for it is written any more. */
    forget: (incidentId: string) => queue.forget(incidentId),
    commit,
    /**
     * Repeats of this incident in the batch being committed: a count read from the database now
     * may or may not hold them yet (the commit's answer decides).
     */
    addedInFlight: (incidentId: string) => queue.inFlight()?.added.get(incidentId) ?? 0,
    /** Whether a put of this incident waits for the next batch. */
    queued: (incidentId: string) => queue.queued(incidentId),
    pendingCount,
    failures: () => health.failures(),
    lastError: () => health.lastError(),
    refused: () => ({ count: refusedWrites, last: lastRefused }),
    async close() {
      await commit().catch((error: unknown) => logger.error({ err_message: errorText(error), pending_writes: pendingCount() }, 'writes not committed at close'));
      health.close();
      if (lazyTimer) clearTimeout(lazyTimer);
    },
  };
}
