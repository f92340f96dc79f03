import { randomUUID } from 'node:crypto';
import { createPool, migrate } from '../../src/store-pg/database';
import { createPgStore } from '../../src/store-pg/pg-store';
import { silent } from '../helpers/relay';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { describeStoreContract } from './store-contract';
import { onTestFinished } from 'vitest';

const pg = usePostgres();

describeStoreContract(
  'PostgreSQL (the team relay)',
  async () => {
    const url = await pg.freshDatabase();
    const pool = createPool({ url, logger: silent });
    onTestFinished(() => pool.end());
    await migrate(pool, silent);
    return { open: async (opts) => createPgStore({ pool, relayId: randomUUID(), retention: opts?.retention ?? 1000, logger: silent }) };
  },
  { skip: noPostgres },
);
