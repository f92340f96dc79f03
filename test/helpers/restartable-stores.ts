import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import { createPersistentStore } from '../../src/core/incidents/persistent-store';
import type { IncidentStore } from '../../src/core/incidents/store';
import { createPool, migrate } from '../../src/adapters/store-pg/database';
import { createPgStore } from '../../src/adapters/store-pg/pg-store';
import { noPostgres, type usePostgres } from './postgres';
import { silent } from './relay';
import { tempDir } from './temp-dir';

/** A backend for `describe.each`: its name, a fresh place that opens a store on it (again after a restart), and why it is skipped. */
export type RestartableStore = [name: string, fresh: () => Promise<() => Promise<IncidentStore>>, skip: string | undefined];

/**
 * The laptop's files and the team relay's PostgreSQL, each reopened on the same data for the
 * restarted relay: relay-level tests that run on both hold the backends to one behaviour.
 */
export function restartableStores(pg: ReturnType<typeof usePostgres>): RestartableStore[] {
  return [
    [
      'files',
      async () => {
        const dir = tempDir('fault-relay-restart-');
        const b = () => createFileBackends(dir);
        return async () => {
          const { open, archive } = b();
          return createPersistentStore({ backend: open, archive, timelineDir: join(dir, 'timelines'), retention: 1000, logger: silent });
        };
      },
      undefined,
    ],
    [
      'postgresql',
      async () => {
        const pool = createPool({ url: await pg.freshDatabase(), logger: silent });
        onTestFinished(() => pool.end());
        await migrate(pool, silent);
        // The same relay restarted: the same id, so its incidents are still its own.
        return () => createPgStore({ pool, relayId: 'relay-1', retention: 1000, logger: silent });
      },
      noPostgres,
    ],
  ];
}
