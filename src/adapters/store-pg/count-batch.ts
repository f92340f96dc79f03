import type pg from 'pg';
import { CHANGE_CHANNEL, type Batch, type Written } from './write-batch';

/** A notice holds the counts of this many incidents at most (NOTIFY payloads are limited to 8,000 bytes). */
const MAX_COUNTS = 50;

/**
 * Whether a batch only adds repeats to incidents the database holds: no new incident, no record
 * changed, no timeline line, no eviction. Such a batch (a storm of repeats: nearly every batch
 * under load) is one statement, atomic by itself, instead of a transaction of four round trips;
 * with two relays each commits half the repeats in twice the batches, and the round trips were
 * what the second relay spent its time on.
 */
export function countsOnly(batch: Batch): boolean {
  if (batch.appends.length || batch.evictions.size) return false;
  const ids = new Set([...batch.puts.keys(), ...batch.bumps]);
  if (ids.size === 0 || ids.size > MAX_COUNTS) return false;
  for (const id of batch.puts.keys()) if (!batch.countOnly.has(id)) return false;
  return true;
}

/**
 * The counts and last sightings added, and every other relay told the database's new values
 * (ChangeNotice `c`), in one statement: the notice goes out when it commits.
 */
export async function writeCounts(client: pg.PoolClient, batch: Batch, me: string): Promise<Written> {
  const rows = [...new Set([...batch.puts.keys(), ...batch.bumps])].map((id) => ({ id, added: batch.added.get(id) ?? 0, seen: batch.puts.get(id)?.last_seen ?? '' }));
  const res = await client.query<{ incident_id: string; owner: string; occurrences: number; last_seen: string }>(
    `WITH x AS (SELECT e->>'id' AS id, (e->>'added')::integer AS added, e->>'seen' AS seen FROM jsonb_array_elements($1::jsonb) AS e),
     u AS (UPDATE incidents AS i SET
             -- A repeat answered 503 is taken back (a negative count): the sender's retry is the one counted.
             occurrences = GREATEST(1, i.occurrences + x.added),
             last_seen   = GREATEST(i.last_seen, x.seen)
           FROM x WHERE i.incident_id = x.id
           RETURNING i.incident_id, i.owner, i.occurrences, i.last_seen),
     n AS (SELECT pg_notify($2, json_build_object('r', $3::text, 'i', json_build_array(), 'c', json_object_agg(incident_id, json_build_array(occurrences, last_seen)))::text)
           FROM u HAVING count(*) > 0)
     SELECT u.*, (SELECT count(*) FROM n) AS notified FROM u`,
    [JSON.stringify(rows), CHANGE_CHANNEL, me],
  );
  const out: Written = { totals: new Map(), foreign: [], folds: [], collisions: [], missing: [] };
  for (const r of res.rows) {
    out.totals.set(r.incident_id, r.occurrences);
    if (r.owner !== me && batch.puts.has(r.incident_id)) out.foreign.push(r.incident_id);
  }
  out.missing.push(...rows.filter((r) => !out.totals.has(r.id) && batch.puts.has(r.id)).map((r) => r.id));
  return out;
}
