import type pg from 'pg';
import type { Logger } from 'pino';
import { jitteredBackoff } from '../../core/backoff';
import type { Incident, TimelineEntry } from '../../core/incidents/model';
import { StoreUnavailableError } from '../../core/incidents/store';
import { databaseErrorMessage } from './database';
import { commitOnce } from './commit-once';
import { batchSize, isRefusedWrite, mergeUnits, splitBatch, unitIncident, WriteRefusedError, type SetAside } from './isolate';
import type { Batch, Written } from './write-batch';

/** New incidents the database holds other incidents under the ids of: not stored, and said so. */
export class IncidentIdConflictError extends Error {
  override readonly name = 'IncidentIdConflictError';
}

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
  const retryDelay = jitteredBackoff({ baseMs: opts.retryBaseMs ?? 250, maxMs: opts.retryMaxMs ?? 5_000 });
  let puts = new Map<string, Incident>();
  let appends: { incident_id: string; entry: TimelineEntry }[] = [];
  let evictions = new Set<string>();
  let bumps = new Set<string>();
  let lazyTimer: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let failures = 0;
  let lastError: string | undefined;
  /** Writes the database refused for what they held, set aside since start, and the last one's reason. */
  let refusedWrites = 0;
  let lastRefused: string | undefined;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  /** Writes of the batch being committed right now: still not durable. */
  let committing = 0;
  /** The batch being committed right now, until memory has taken what it wrote. */
  let inFlight: Batch | undefined;
  const pendingCount = () => puts.size + appends.length + evictions.size + bumps.size + committing;

  async function commitPending(): Promise<void> {
    if (pendingCount() === 0) return;
    const counted = [...puts.keys(), ...bumps];
    const batch: Batch = {
      puts,
      appends,
      evictions,
      bumps,
      persisted: opts.persisted,
      countOnly: new Set([...puts.keys()].filter((id) => opts.persisted.has(id) && opts.countOnly(id))),
      added: new Map(counted.flatMap((id) => (opts.added.has(id) ? [[id, opts.added.get(id) as number] as const] : []))),
    };
    puts = new Map();
    appends = [];
    evictions = new Set();
    bumps = new Set();
    committing = batchSize(batch);
    inFlight = batch;
    let written: Written;
    try {
      written = await commitOnce(pool, batch, me);
    } catch (error) {
      inFlight = undefined;
      if (!isRefusedWrite(error)) {
        restore(batch);
        throw error;
      }
      return isolate(batch);
    }
    committing = 0;
    const following = opts.committed(batch, written);
    inFlight = undefined;
    reachable();
    await following;
    if (written.collisions.length) {
      throw new IncidentIdConflictError(`incidents ${written.collisions.join(', ')} were not stored: the database holds other incidents under their ids`);
    }
  }

  function reachable() {
    if (failures > 0) logger.info({ after_failures: failures }, 'database reachable again: queued writes committed');
    failures = 0;
    lastError = undefined;
  }

  /**
   * A batch the database refused for what it holds: each write tried alone, in order; those
   * refused alone are set aside (the store is told) and the rest committed. Sent again as it was,
   * it would be refused for ever, with every write queued behind it.
   */
  async function isolate(batch: Batch): Promise<void> {
    const units = splitBatch(batch);
    const setAside: SetAside[] = [];
    const following: Promise<void>[] = [];
    const collisions: string[] = [];
    for (const [n, unit] of units.entries()) {
      inFlight = unit;
      try {
        const written = await commitOnce(pool, unit, me);
        committing -= batchSize(unit);
        const after = opts.committed(unit, written);
        if (after) following.push(after);
        collisions.push(...written.collisions);
      } catch (error) {
        inFlight = undefined;
        if (!isRefusedWrite(error)) {
          restore(mergeUnits(units.slice(n), batch));
          throw error;
        }
        committing -= batchSize(unit);
        const incidentId = unitIncident(unit);
        setAside.push({ batch: unit, incidentId, insert: unit.puts.size > 0 && !batch.persisted.has(incidentId ?? ''), reason: databaseErrorMessage(error) });
      }
    }
    inFlight = undefined;
    reachable();
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

  /** A failed batch goes back in front of anything written since, so order is kept. */
  function restore(batch: Batch) {
    committing = 0;
    for (const [id, incident] of puts) batch.puts.set(id, incident);
    puts = batch.puts;
    appends = [...batch.appends, ...appends];
    evictions = new Set([...batch.evictions, ...evictions]);
    bumps = new Set([...batch.bumps, ...bumps]);
  }

  /** Commits everything queued so far, after any commit already running. */
  function commit(): Promise<void> {
    if (lazyTimer) clearTimeout(lazyTimer);
    lazyTimer = null;
    const run = chain.then(commitPending);
    chain = run.catch((error: unknown) => {
      const message = databaseErrorMessage(error);
      if (error instanceof IncidentIdConflictError) {
        // Written already, the rest of the batch: nothing to retry, only to report.
        logger.error({ err_message: message }, `incident id conflict: ${message}`);
        return;
      }
      // Set aside and reported, the rest written: nothing to retry.
      if (error instanceof WriteRefusedError) return;
      failures += 1;
      if (lastError !== message) logger.error({ err_message: message, pending_writes: pendingCount() }, `database write failed; retrying: ${message}`);
      lastError = message;
      if (!closed && !retryTimer) {
        retryTimer = setTimeout(() => {
          retryTimer = null;
          void commit().catch(() => {});
        }, retryDelay(failures - 1));
        retryTimer.unref?.();
      }
    });
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
      puts.set(incident.incident_id, incident);
      soon(lazy);
    },
    append(incidentId: string, entry: TimelineEntry) {
      appends.push({ incident_id: incidentId, entry });
      soon(false);
    },
    evict: (incidentId: string) => evictions.add(incidentId),
    /** Only the count of this incident changed here (`added`): written as an increment. */
    bump(incidentId: string) {
      bumps.add(incidentId);
      soon(false);
    },
    /** An incident folded into another: nothing queued for it is written any more. */
    forget(incidentId: string) {
      puts.delete(incidentId);
      bumps.delete(incidentId);
      appends = appends.filter((a) => a.incident_id !== incidentId);
    },
    commit,
    /**
     * Repeats of this incident in the batch being committed: a count read from the database now
     * may or may not hold them yet (the commit's answer decides).
     */
    addedInFlight: (incidentId: string) => inFlight?.added.get(incidentId) ?? 0,
    /** Whether a put of this incident waits for the next batch. */
    queued: (incidentId: string) => puts.has(incidentId),
    pendingCount,
    failures: () => failures,
    lastError: () => lastError,
    refused: () => ({ count: refusedWrites, last: lastRefused }),
    async close() {
      await commit().catch((error: unknown) => logger.error({ err_message: (error as Error).message, pending_writes: pendingCount() }, 'writes not committed at close'));
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (lazyTimer) clearTimeout(lazyTimer);
    },
  };
}
