import type pg from 'pg';
import { StoreUnavailableError } from '../incidents/store';
import { databaseErrorMessage, holdConnection, isDriverTimeout, queryWithTimeout } from '../store-pg/database';
import type { RemoteChange, SharedIncidentStore } from '../store-pg/pg-store';
import { teamRepository } from '../store-pg/team-repository';

/** The advisory-lock key of the team's new-incident lock (any fixed number). */
export const NEW_INCIDENT_LOCK = 0x6e65_7769;

/**
 * The team's new-incident lock: a new fault is created by one relay at a time, after the
 * database's open incident for it is read into memory.
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
        await client.query('BEGIN');
        begun = true;
        // The pool's statement timeout is for the hot paths; this wait has its own, and both are the server's.
        await client.query(`SET LOCAL statement_timeout = ${lockWaitMs + 1_000}`);
        await client.query(`SET LOCAL lock_timeout = ${lockWaitMs}`);
        await client.query(queryWithTimeout('SELECT pg_advisory_xact_lock($1)', [NEW_INCIDENT_LOCK], lockWaitMs + 5_000));
        await client.query('SET LOCAL statement_timeout = DEFAULT');
        // Ids carry the relay's tag (src/incidents/ids.ts): only the fault's open incident needs reading.
        emit(await store.refresh(await teamRepository(client).openIncidentIdsFor(dedupKey)));
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

  let localTurn: Promise<void> = Promise.resolve();
  return function newIncidentLock<T>(dedupKey: string, fn: () => Promise<T>): Promise<T> {
    // One waiter per relay on the database lock: waiters each holding a pooled connection would
    // leave none for the holder's own commit (a storm of new faults would starve the pool).
    const run = localTurn.then(() => lockedAcrossTeam(dedupKey, fn));
    localTurn = run.then(
      () => {},
      () => {},
    );
    return run;
  };
}
