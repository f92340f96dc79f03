import type pg from 'pg';
import { holdConnection, isDriverTimeout } from './database';
import { countsOnly, writeCounts } from './count-batch';
import { writeBatch, type Batch, type Written } from './write-batch';

/**
 * One batch in one transaction on a connection of its own (a batch of counts alone is one
 * statement). On failure nothing of it is written, the connection is rolled back or discarded,
 * and the error is the caller's to judge.
 */
export async function commitOnce(pool: pg.Pool, batch: Batch, me: string): Promise<Written> {
  const held = await holdConnection(pool);
  const { client } = held;
  const single = countsOnly(batch);
  try {
    let written: Written;
    if (single) written = await writeCounts(client, batch, me);
    else {
      await client.query('BEGIN');
      written = await writeBatch(client, batch, me);
      await client.query('COMMIT');
    }
    held.release();
    return written;
  } catch (error) {
    // A query the driver gave up on still occupies the connection: a ROLLBACK would queue behind it.
    if (!single && !held.lost && !isDriverTimeout(error)) await client.query('ROLLBACK').catch(() => {});
    // A broken connection must not go back to the pool.
    held.release(error instanceof Error ? error : true);
    throw error;
  }
}
