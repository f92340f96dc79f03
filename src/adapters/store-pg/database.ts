import pg from 'pg';
import type { Logger } from 'pino';
import { MIGRATIONS } from './migrations';

/** Any fixed number: the lock that keeps two relays starting together from migrating twice. */
const MIGRATION_LOCK = 0x6661_756c;
/** How long a relay starting waits for another one's migrations before it says so and stops. */
const MIGRATION_LOCK_WAIT_MS = 60_000;

export interface DatabaseOptions {
  url: string;
  logger: Logger;
  /** Connections this relay may hold; the listener and the leader lock take one each besides. */
  max?: number;
  /** How long a query may wait for a connection before the relay says the database is away. */
  connectTimeoutMs?: number;
  /** How long the relay waits for any answer before it gives up on a query (default 15 s). */
  queryTimeoutMs?: number;
}

/**
 * What the server is told for every connection of the pool, from the driver's query timeout:
 * a statement (a lock wait included) is cancelled on the server before the driver gives up on
 * it, so nothing is left waiting there to be granted late; and a transaction whose relay went
 * silent (a stalled network, a frozen process) is ended by the server with its locks, so the
 * team's new-incident lock and the rows it wrote never stay held for the other relays.
 */
export function serverTimeouts(queryTimeoutMs: number) {
  return {
    statement_timeout: Math.max(1, Math.floor(queryTimeoutMs * 0.8)),
    idle_in_transaction_session_timeout: queryTimeoutMs + Math.max(1_000, Math.floor(queryTimeoutMs / 3)),
  };
}

/** The driver gave up on a query (its `query_timeout`): the connection is busy with it still and must not be reused. */
export const isDriverTimeout = (error: unknown) => error instanceof Error && error.message === 'Query read timeout';

/** The database URL with its password replaced, for logs and /health/deep. */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${u.username}${u.password ? ':***' : ''}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'postgresql://(unparseable URL)';
  }
}

/** A database error in words, without the URL or its password. */
export function databaseErrorMessage(error: unknown): string {
  const e = error as { code?: string; message?: string };
  if (e.code === 'ECONNREFUSED') return 'connection refused (is PostgreSQL running?)';
  if (e.code === 'ENOTFOUND') return 'database host not found';
  if (e.code === '28P01' || e.code === '28000') return 'the database refused the credentials in DATABASE_URL';
  if (e.code === '3D000') return 'the database named in DATABASE_URL does not exist';
  if (e.code === '57P01' || e.code === '57P03') return 'the database is shutting down or starting';
  if (e.code === '57014') return 'the database took too long to answer (the statement was cancelled on the server)';
  if (e.code === '25P03') return 'the database ended a transaction this relay left idle too long';
  if (isDriverTimeout(error)) return 'the database did not answer in time';
  if (e.code === '55P03') return 'a lock the relays share was held by another relay for too long (lock wait timed out)';
  const message = e.message ?? String(error);
  // pg's messages never carry the password, but a URL could come through a driver error.
  return message.replace(/postgres(?:ql)?:\/\/[^\s]+/g, (m) => describeDatabaseUrl(m));
}

/**
 * A pooled connection that listens for 'error' for its whole life. pg emits 'error' on a client
 * whose server ends it (a restart, pg_terminate_backend) when no query of it is running; the pool
 * listens only while the client is idle in the pool, so one checked out between two queries (a
 * pool.query finishing as the server goes) had no listener, and an unlistened 'error' ends the
 * process: a relay died that way under load in an alert storm. The error itself needs nothing
 * more here: the client is marked unusable, its queries fail on their own (answered 503), and the
 * pool discards it when it comes back.
 */
class ListenedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {});
  }
}

export function createPool(opts: DatabaseOptions): pg.Pool {
  const pool = new pg.Pool({
    Client: ListenedClient as unknown as new () => pg.ClientBase,
    connectionString: opts.url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 3_000,
    // A dead server must fail a query, not hang it (the intake answers 503 instead).
    query_timeout: opts.queryTimeoutMs ?? 15_000,
    ...serverTimeouts(opts.queryTimeoutMs ?? 15_000),
    keepAlive: true,
  });
  // An idle client losing its server is not a crash: the next query reconnects.
  pool.on('error', (error) => opts.logger.warn({ err_message: databaseErrorMessage(error) }, 'database connection lost'));
  return pool;
}

/** A query with a driver timeout of its own (pg reads `query_timeout` per query; its types leave it out). */
export const queryWithTimeout = (text: string, values: unknown[], timeoutMs: number): pg.QueryConfig => ({ text, values, query_timeout: timeoutMs }) as pg.QueryConfig;

/**
 * A connection taken from the pool (`pool.connect()`), with an 'error' listener for as long as it
 * is held. pg emits 'error' on a client whose server ends it (a restart, pg_terminate_backend),
 * even one idle in a transaction, and an 'error' nobody listens to ends the relay's process.
 */
export interface HeldConnection {
  client: pg.PoolClient;
  /** What the connection reported while held: it is broken, and `release` discards it. */
  readonly lost: Error | undefined;
  /** Back to the pool, or closed when it broke or `discard` says so (a connection that may hold a lock). */
  release(discard?: unknown): void;
}

export async function holdConnection(pool: pg.Pool): Promise<HeldConnection> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost ??= error;
  };
  client.on('error', onError);
  let released = false;
  return {
    client,
    get lost() {
      return lost;
    },
    release(discard?: unknown) {
      if (released) return;
      released = true;
      const reason = lost ?? (discard instanceof Error ? discard : discard ? new Error('connection discarded') : undefined);
      // The pool puts its own listener back on before this one goes: never a moment without one.
      client.release(reason);
      client.removeListener('error', onError);
    },
  };
}

/** Applies the migrations this database has not seen, in one transaction each, under a lock. */
export async function migrate(pool: pg.Pool, logger: Logger): Promise<number[]> {
  const held = await holdConnection(pool);
  const { client } = held;
  const applied: number[] = [];
  let unlocked = false;
  try {
    // A wait that runs out is cancelled on the server too (lock_timeout), before the driver gives up on it.
    await client.query('BEGIN');
    // The pool's statement timeout is for the hot paths: waiting for another relay's migrations may take longer.
    await client.query(`SET LOCAL statement_timeout = ${MIGRATION_LOCK_WAIT_MS + 1_000}`);
    await client.query(`SET LOCAL lock_timeout = ${MIGRATION_LOCK_WAIT_MS}`);
    await client.query(queryWithTimeout('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK], MIGRATION_LOCK_WAIT_MS + 5_000));
    // A session lock: it outlives this transaction, and is let go of below (or with the connection).
    await client.query('COMMIT');
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    const newest = Math.max(0, ...done);
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    if (newest > known) throw new Error(`the database schema is at version ${newest}, newer than this relay knows (${known}): upgrade the relay`);
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        // A migration of a large table may take longer than a hot path's statement.
        await client.query('SET LOCAL statement_timeout = 0');
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
      applied.push(m.version);
      logger.info({ version: m.version }, `database migrated: ${m.name}`);
    }
  } finally {
    if (!held.lost) unlocked = await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).then(() => true, () => false);
    // A connection that may still hold (or wait for) the lock is closed, which lets go of it.
    held.release(!unlocked);
  }
  return applied;
}
