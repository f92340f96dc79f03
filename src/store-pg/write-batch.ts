import type pg from 'pg';
import { TERMINAL_STATES, type Incident, type TimelineEntry } from '../incidents/model';

/** Where every relay on the database hears of a change: `{ r: writer relay, i: incident ids }`. */
export const CHANGE_CHANNEL = 'fault_relay_changes';
const TERMINAL = [...TERMINAL_STATES];
/** NOTIFY payloads are limited to 8,000 bytes: ids go out in groups this size. */
const IDS_PER_NOTIFY = 100;

export interface Batch {
  puts: Map<string, Incident>;
  appends: { incident_id: string; entry: TimelineEntry }[];
  evictions: Set<string>;
  /** Repeats folded here since the database's count was last read, per incident. */
  added: Map<string, number>;
  /** Incidents the database already holds: their puts are updates. */
  persisted: ReadonlySet<string>;
}

/**
 * One batch of the write-behind journal, inside the caller's transaction: new incidents inserted,
 * known ones updated (the record only by its owner, repeats added by anyone), timeline lines
 * appended in order, evictions deleted, and one notification per hundred incidents changed.
 * Returns each written incident's count as the database now holds it, and those this relay does
 * not own (its memory of them was a step behind).
 */
export async function writeBatch(client: pg.PoolClient, batch: Batch, me: string): Promise<{ totals: Map<string, number>; foreign: string[] }> {
  const totals = new Map<string, number>();
  const foreign: string[] = [];
  if (batch.puts.size) {
    const docs = [...batch.puts.values()];
    const inserted = await client.query<{ incident_id: string; occurrences: number }>(
      `INSERT INTO incidents (incident_id, doc, state, terminal, dedup_key, created_at, updated_at, occurrences, last_seen, owner)
       SELECT d->>'incident_id', d, d->>'state', (d->>'state') = ANY($2::text[]), d->>'dedup_key', d->>'created_at', d->>'updated_at',
              (d->>'occurrences')::integer, d->>'last_seen', $3
         FROM jsonb_array_elements($1::jsonb) AS d
       ON CONFLICT (incident_id) DO NOTHING
       RETURNING incident_id, occurrences`,
      [JSON.stringify(docs.filter((d) => !batch.persisted.has(d.incident_id))), TERMINAL, me],
    );
    for (const r of inserted.rows) totals.set(r.incident_id, r.occurrences);
    const existing = docs.filter((d) => !totals.has(d.incident_id)).map((doc) => ({ doc, added: batch.added.get(doc.incident_id) ?? 0 }));
    if (existing.length) {
      // Only the owner's record is written; anyone's repeats are added.
      const updated = await client.query<{ incident_id: string; owner: string; occurrences: number }>(
        `UPDATE incidents AS i SET
           doc         = CASE WHEN i.owner = $3 THEN x->'doc' ELSE i.doc END,
           state       = CASE WHEN i.owner = $3 THEN x->'doc'->>'state' ELSE i.state END,
           terminal    = CASE WHEN i.owner = $3 THEN (x->'doc'->>'state') = ANY($2::text[]) ELSE i.terminal END,
           updated_at  = CASE WHEN i.owner = $3 THEN x->'doc'->>'updated_at' ELSE i.updated_at END,
           occurrences = i.occurrences + GREATEST(0, (x->>'added')::integer),
           last_seen   = GREATEST(i.last_seen, x->'doc'->>'last_seen')
         FROM jsonb_array_elements($1::jsonb) AS x
         WHERE i.incident_id = x->'doc'->>'incident_id'
         RETURNING i.incident_id, i.owner, i.occurrences`,
        [JSON.stringify(existing), TERMINAL, me],
      );
      for (const r of updated.rows) {
        totals.set(r.incident_id, r.occurrences);
        if (r.owner !== me) foreign.push(r.incident_id);
      }
    }
  }
  if (batch.appends.length) {
    await client.query(
      `INSERT INTO timeline (incident_id, relay_id, entry)
       SELECT a->>'incident_id', $2, a->'entry' FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(a, n) ORDER BY n`,
      [JSON.stringify(batch.appends), me],
    );
  }
  if (batch.evictions.size) {
    const ids = [...batch.evictions];
    await client.query('DELETE FROM incidents WHERE incident_id = ANY($1) AND terminal', [ids]);
    await client.query('DELETE FROM timeline WHERE incident_id = ANY($1)', [ids]);
  }
  const changed = [...new Set([...batch.puts.keys(), ...batch.appends.map((a) => a.incident_id)])];
  for (let n = 0; n < changed.length; n += IDS_PER_NOTIFY) {
    await client.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify({ r: me, i: changed.slice(n, n + IDS_PER_NOTIFY) })]);
  }
  return { totals, foreign };
}
