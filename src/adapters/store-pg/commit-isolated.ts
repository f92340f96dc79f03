import type pg from 'pg';
import { databaseErrorMessage } from './database';
import { commitOnce } from './commit-once';
import { isRefusedWrite, mergeUnits, splitBatch, unitIncident, type SetAside } from './isolate';
import type { WriteQueue } from './write-queue';
import type { Batch, Written } from './write-batch';

/**
 * A batch the database refused for what it holds: each write tried alone, in order; those
 * refused alone are set aside and the rest committed. Sent again as it was, it would be refused
 * for ever, with every write queued behind it. A failure that is not a refusal puts the writes not
 * yet committed back in the queue and is thrown.
 */
export async function commitIsolated(
  deps: { pool: pg.Pool; me: string; queue: WriteQueue; committed(batch: Batch, written: Written): Promise<void> | undefined },
  batch: Batch,
): Promise<{ setAside: SetAside[]; following: Promise<void>[]; collisions: string[] }> {
  const { queue } = deps;
  const units = splitBatch(batch);
  const setAside: SetAside[] = [];
  const following: Promise<void>[] = [];
  const collisions: string[] = [];
  for (const [n, unit] of units.entries()) {
    queue.flying(unit);
    try {
      const written = await commitOnce(deps.pool, unit, deps.me);
      queue.landed(unit);
      const after = deps.committed(unit, written);
      if (after) following.push(after);
      collisions.push(...written.collisions);
    } catch (error) {
      queue.flying(undefined);
      if (!isRefusedWrite(error)) {
        queue.restore(mergeUnits(units.slice(n), batch));
        throw error;
      }
      queue.landed(unit);
      const incidentId = unitIncident(unit);
      setAside.push({ batch: unit, incidentId, insert: unit.puts.size > 0 && !batch.persisted.has(incidentId ?? ''), reason: databaseErrorMessage(error) });
    }
  }
  queue.flying(undefined);
  return { setAside, following, collisions };
}
