import { describe, expect, it } from 'vitest';
import { createPool } from '../../src/adapters/store-pg/database';
import { silent } from '../helpers/relay';
import { noPostgres, testConnection, usePostgres } from '../helpers/postgres';

/**
 * A connection of the relay's pool that the server ends while it is checked out between two
 * queries: pg emits 'error' on it, which without a listener would be an unhandled error here
 * (vitest fails the file for it) and the end of a relay process.
 */
const pg = usePostgres();

describe.skipIf(Boolean(noPostgres))("the relay's pool when the server ends a connection", () => {
  it('survives it on a connection checked out between queries, and the pool goes on with a new one', async () => {
    const url = await pg.freshDatabase();
    const pool = createPool({ url, logger: silent });
    const db = await testConnection(url);
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
      await db.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
      await ended;
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    } finally {
      await db.end();
      await pool.end();
    }
  });
});
