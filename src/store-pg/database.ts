import pg from 'pg';
import type { Logger } from 'pino';
import { MIGRATIONS } from './migrations';

/** Any fixed number: the lock that keeps two relays starting together from migrating twice. */
const MIGRATION_LOCK = 0x6661_756c;

export interface DatabaseOptions {
  url: string;
  logger: Logger;
  /** Connections this relay may hold; the listener and the leader lock take one each besides. */
  max?: number;
  /** How long a query may wait for a connection before the relay says the database is away. */
  connectTimeoutMs?: number;
}

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
  const message = e.message ?? String(error);
  // pg's messages never carry the password, but a URL could come through a driver error.
  return message.replace(/postgres(?:ql)?:\/\/[^\s]+/g, (m) => describeDatabaseUrl(m));
}

export function createPool(opts: DatabaseOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 3_000,
    // A dead server must fail a query, not hang it (the intake answers 503 instead).
    query_timeout: 15_000,
    keepAlive: true,
  });
  // An idle client losing its server is not a crash: the next query reconnects.
  pool.on('error', (error) => opts.logger.warn({ err_message: databaseErrorMessage(error) }, 'database connection lost'));
  return pool;
}

/** Applies the migrations this database has not seen, in one transaction each, under a lock. */
export async function migrate(pool: pg.Pool, logger: Logger): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
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
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(m.version);
      logger.info({ version: m.version }, `database migrated: ${m.name}`);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return applied;
}
