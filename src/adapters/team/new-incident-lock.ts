import { createHash } from 'node:crypto';
import type pg from 'pg';
import { StoreUnavailableError } from '../../core/incidents/store';
import { databaseErrorMessage, holdConnection, isDriverTimeout } from '../store-pg/database';
import type { RemoteChange, SharedIncidentStore } from '../store-pg/pg-store';
import { teamRepository } from '../store-pg/team-repository';

/**
 * The new-incident locks' namespace: the first key of the two-key advisory lock (any fixed
 * number). In `pg_locks` a fault's lock shows as `classid = NEW_INCIDENT_LOCK AND objsubid = 2`.
 */
export const NEW_INCIDENT_LOCK = 0x6e65_7769;

/**
 * The advisory-lock keys of one fault's new-incident lock: the namespace and a 32-bit hash of the
 * fault key. Two faults whose hashes meet only wait for each other; the same fault always meets
 * itself, which is what keeps it to one incident.
 */
export function newIncidentLockKey(dedupKey: string): [number, number] {
  return [NEW_INCIDENT_LOCK, createHash('sha256').update(dedupKey).digest().readInt32BE(0)];
}

/**
 * The team's new-incident lock, one per fault: a new fault is created by one relay at a time,
 * after the database's open incident for it is read into memory; different faults are created
 * side by side, on this relay and across the team.
 *
 * The lock is a transaction's (`pg_advisory_xact_lock`): it ends with the transaction, or with its
 * connection when the database ends that. A wait for it that runs out (`lockWaitMs`) is cancelled
 * on the server (`lock_timeout`), before the driver's own timeout: it is never granted late to a
 * connection back in the pool, which would hold it for ever.
 */
export function createNewIncidentLock(opts: { pool: pg.Pool; store: SharedIncidentStore; emit: (changes: RemoteChange[]) => void; lockWaitMs: number }) {
  const { pool, store, emit } = opts;
  const lockWaitMs = Math.max(1, Math.floor(opts.lockWaitMs));
  const unavailable = (error: unknown) => new StoreUnavailableError(`the incident database is not reachable: ${databaseErrorMessage(error)}`);

  async function lockedAcrossTeam<T>(dedupKey: string, fn: () => Promise<T>): Promise<T> {
    const held = await holdConnection(pool).catch((error: unknown) => {
      throw unavailable(error);
    });
    const { client } = held;
    let begun = false;
    /** The driver gave up on a query of this connection: it is still busy with it, and a COMMIT would queue behind. */
    let busy = false;
    try {
      try {
        // The pool's statement timeout is for the hot paths; this wait has its own, and both are the server's.
        // The raised statement timeout stays for the COMMIT below (no round trip to set it back): the
        // driver's timeout still ends it, and closes the connection with the lock.
        // Ids carry the relay's tag (src/core/incidents/ids.ts): only the fault's open incident needs reading.
        begun = true;
        const open = await teamRepository(client).lockFault(newIncidentLockKey(dedupKey), dedupKey, lockWaitMs, lockWaitMs + 5_000);
        if (open.length) emit(await store.refresh(open));
      } catch (error) {
        busy = isDriverTimeout(error);
        throw unavailable(error);
      }
      return await fn();
    } finally {
      // Ends the transaction and the lock with it (an aborted one too: its COMMIT answers ROLLBACK).
      const ended = begun && !held.lost && !busy && (await client.query('COMMIT').then(() => true, () => false));
      // A connection whose transaction may still be open, holding the lock, is closed: that lets go of it.
      held.release(!ended);
    }
  }

  /**
   * At most this many of the relay's new faults hold a pooled connection for their lock at once:
   * the rest of the pool stays for the commit they wait on, and for the other paths (a storm of
   * new faults must not starve the pool).
   */
  const poolMax = (pool as unknown as { options?: { max?: number } }).options?.max ?? 10;
  const holders = Math.max(1, poolMax - 4);
  let holding = 0;
  const waiting: (() => void)[] = [];
  const slot = async () => {
    if (holding < holders) {
      holding += 1;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const freeSlot = () => {
    const next = waiting.shift();
    if (next) next();
    else holding -= 1;
  };

  /** Per fault, this relay's one waiter on the database lock; a later alert of it waits here, holding no connection. */
  const turns = new Map<string, Promise<void>>();
  return function newIncidentLock<T>(dedupKey: string, fn: () => Promise<T>): Promise<T> {
    const before = turns.get(dedupKey) ?? Promise.resolve();
    const run = before.then(async () => {
      await slot();
      try {
        return await lockedAcrossTeam(dedupKey, fn);
      } finally {
        freeSlot();
      }
    });
    const turn = run.then(
      () => {},
      () => {},
    );
    turns.set(dedupKey, turn);
    void turn.then(() => {
      if (turns.get(dedupKey) === turn) turns.delete(dedupKey);
    });
    return run;
  };
}
