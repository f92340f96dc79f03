import { afterAll, beforeAll } from 'vitest';
import { findPostgresBin, startLocalPostgres, type LocalPostgres } from '../../src/store-pg/local-server';
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
    server = await startLocalPostgres({ prefix: 'fault-relay-pg-test-' });
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
    freshDatabase: async () => {
      if (!server) throw new Error('PostgreSQL was not started');
      return server.createDatabase(`t${process.pid}_${++databases}`);
    },
  };
}
