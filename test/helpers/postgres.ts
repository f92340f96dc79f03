import { afterAll, beforeAll, inject } from 'vitest';
import pg from 'pg';
import { findPostgresBin, startLocalPostgres, type LocalPostgres } from '../../src/adapters/store-pg/local-server';
import { atExit } from './at-exit';

/** Why PostgreSQL tests cannot run here, or undefined when they can (CI installs it: .ci/run). */
export const noPostgres = findPostgresBin() ? undefined : 'PostgreSQL is not installed (apt-get install -y postgresql): team relay tests skipped';

/**
 * A real PostgreSQL server for the calling test file (started before its tests, removed after
 * them, or when the worker exits), and a fresh database on it for each test that asks.
 */
export function usePostgres() {
  let server: LocalPostgres | undefined;
  let databases = 0;
  beforeAll(async () => {
    if (noPostgres) return;
    server = await startLocalPostgres({ prefix: 'fault-relay-pg-test-', template: inject('pgTemplate') });
    const started = server;
    atExit(() => started.destroySync());
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
  });
  return {
    server: () => {
      if (!server) throw new Error('PostgreSQL was not started');
      return server;
    },
    /**
     * `crashSafe`: commits reach the server's WAL before they are answered, so a test that restarts
     * the server with `-m immediate` finds every one (the throwaway server commits asynchronously).
     */
    freshDatabase: async (opts: { crashSafe?: boolean } = {}) => {
      if (!server) throw new Error('PostgreSQL was not started');
      const url = await server.createDatabase(`t${process.pid}_${++databases}`);
      if (opts.crashSafe) {
        const db = await testConnection(url);
        await db.query("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = on', current_database()); END $$");
        await db.end();
      }
      return url;
    },
  };
}

/** How the tests' own connections are named: `endRelayConnections` spares them. */
const TEST_APPLICATION = 'fault-relay-test';

/** A connection of the test's own (not a relay's): to hold locks, look at pg_locks, end the relay's connections. */
export async function testConnection(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: TEST_APPLICATION });
  // Its server may be restarted under it by the test itself.
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** `pg_terminate_backend` on every connection to this database but the tests' own; how many it ended. */
export async function endRelayConnections(db: pg.Client): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name <> $1`,
    [TEST_APPLICATION],
  );
  return res.rows[0]?.n ?? 0;
}

/** Resolves when `sql` (one row, one boolean column `ok`) holds: asked again on each answer, no timer. */
export async function untilDatabase(db: pg.Client, sql: string, params: unknown[] = []): Promise<void> {
  for (;;) {
    const res = await db.query<{ ok: boolean }>(sql, params);
    if (res.rows[0]?.ok) return;
  }
}
