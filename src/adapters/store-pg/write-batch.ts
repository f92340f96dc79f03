import type pg from 'pg';
import { entries } from '../../core/events/timeline-entries';
import { TERMINAL_STATES, type Incident, type TimelineEntry } from '../../core/incidents/model';

/**
 * Where every relay on the database hears of a change: `{ r: writer relay, i: incident ids to read
 * back, c: counts }`. A write that changed only an incident's count and last sighting (a repeat
 * folded by any relay) carries the database's new values, `c: { id: [occurrences, last_seen] }`:
 * the other relays take them as they are instead of reading the row back after every commit,
 * which cost a team's second relay more than the repeats themselves.
 */
export const CHANGE_CHANNEL = 'fault_relay_changes';
export interface ChangeNotice {
  r: string;
  i: string[];
  c?: Record<string, [number, string]>;
}
const TERMINAL = [...TERMINAL_STATES];
/** NOTIFY payloads are limited to 8,000 bytes: ids go out in groups this size (counts take about twice an id). */
const IDS_PER_NOTIFY = 100;
const COUNTS_PER_NOTIFY = 50;
/**
 * The writer's name on a timeline line it writes about another relay's incident (a fold): every
 * relay, the writer included, reads such lines back as news, so each memory and bus gets it.
 */
export const foldWriter = (me: string) => `${me}/fold`;

export interface Batch {
  puts: Map<string, Incident>;
  appends: { incident_id: string; entry: TimelineEntry }[];
  evictions: Set<string>;
  /** Repeats folded here since the database's count was last read, per incident (less those answered 503). */
  added: Map<string, number>;
  /** Incidents whose only write is `added` (repeats of an incident folded away, moved to its survivor). */
  bumps: ReadonlySet<string>;
  /** Incidents the database already holds: their puts are updates. */
  persisted: ReadonlySet<string>;
  /** Puts that change only the count and last sighting of an incident the database holds. */
  countOnly: ReadonlySet<string>;
}

/** A new incident of this relay's that met another relay's open incident for the same fault. */
export interface Fold {
  from: Incident;
  into: string;
  occurrences: number;
}

export interface Written {
  /** Each written incident's count as the database now holds it. */
  totals: Map<string, number>;
  /** Written here without being this relay's: its memory of them was a step behind. */
  foreign: string[];
  folds: Fold[];
  /** New incidents whose id the database holds for another incident: not written (ids carry a relay tag, so never expected). */
  collisions: string[];
  /** Updates of incidents the database no longer holds (finished ones another relay's retention removed). */
  missing: string[];
}

const sameIncident = (doc: Incident, row: { dedup_key: string; created_at: string }) => row.dedup_key === doc.dedup_key && row.created_at === doc.created_at;

/**
 * One batch of the write-behind journal, inside the caller's transaction: new incidents inserted,
 * known ones updated (the record only by its owner, repeats added by anyone), timeline lines
 * appended in order, evictions deleted, and one notification per hundred incidents changed.
 *
 * No write is dropped silently. An insert that meets the one-open-incident-per-fault index (another
 * relay created the fault while this one could not reach the database) is folded into the incident
 * the database holds: its count added there, a line on that timeline, its own lines dropped. One
 * whose id is taken by another incident is returned as a collision for the caller to report.
 */
export async function writeBatch(client: pg.PoolClient, batch: Batch, me: string): Promise<Written> {
  const out: Written = { totals: new Map(), foreign: [], folds: [], collisions: [], missing: [] };
  const docs = [...batch.puts.values()];
  let inserts = docs.filter((d) => !batch.persisted.has(d.incident_id));
  // Writes keep their order: an incident ended before its fault's next one was created (the end
  // failed, and is retried with the creation) is ended first, or the new one would meet it open.
  const newFaults = new Set(inserts.map((d) => d.dedup_key));
  const known = docs.filter((d) => batch.persisted.has(d.incident_id));
  const updates: Incident[] = known.filter((d) => !newFaults.has(d.dedup_key));
  const ending = known.filter((d) => newFaults.has(d.dedup_key));
  const endedFirst = ending.length ? await updateIncidents(client, batch, ending, out, me) : [];
  // A few rounds at most: a survivor found gone (finished meanwhile) lets the insert be tried again.
  for (let round = 0; inserts.length && round < 3; round++) {
    const inserted = await client.query<{ incident_id: string; occurrences: number }>(
      `INSERT INTO incidents (incident_id, doc, state, terminal, dedup_key, created_at, updated_at, occurrences, last_seen, owner)
       SELECT d->>'incident_id', d, d->>'state', (d->>'state') = ANY($2::text[]), d->>'dedup_key', d->>'created_at', d->>'updated_at',
              (d->>'occurrences')::integer, d->>'last_seen', $3
         FROM jsonb_array_elements($1::jsonb) AS d
       -- Any unique index: the incident's id, or the one open incident per fault.
       ON CONFLICT DO NOTHING
       RETURNING incident_id, occurrences`,
      [JSON.stringify(inserts), TERMINAL, me],
    );
    for (const r of inserted.rows) out.totals.set(r.incident_id, r.occurrences);
    const refused = inserts.filter((d) => !out.totals.has(d.incident_id));
    inserts = refused.length ? await placeRefused(client, refused, updates, out, me) : [];
  }
  if (inserts.length) throw new Error(`incidents ${inserts.map((d) => d.incident_id).join(', ')} could not be written: their fault's open incident kept changing`);

  const bumps = [...batch.bumps].filter((id) => !batch.puts.has(id)).map((id) => ({ id, added: batch.added.get(id) ?? 0 }));
  // The lines of an incident folded away or refused go with it (the fold writes its own line on the survivor).
  const dropped = new Set([...out.folds.map((f) => f.from.incident_id), ...out.collisions]);
  const appends = dropped.size ? batch.appends.filter((a) => !dropped.has(a.incident_id)) : batch.appends;
  if (appends.length) {
    await client.query(
      `INSERT INTO timeline (incident_id, relay_id, entry)
       SELECT a->>'incident_id', $2, a->'entry' FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(a, n) ORDER BY n`,
      [JSON.stringify(appends), me],
    );
  }
  if (batch.evictions.size) {
    const ids = [...batch.evictions];
    await client.query('DELETE FROM incidents WHERE incident_id = ANY($1) AND terminal', [ids]);
    await client.query('DELETE FROM timeline WHERE incident_id = ANY($1)', [ids]);
  }
  const changed = [...new Set([...batch.puts.keys(), ...bumps.map((b) => b.id), ...appends.map((a) => a.incident_id), ...out.folds.map((f) => f.into)])].filter((id) => !dropped.has(id));
  // Counts are known only once the rows are updated (below); the notices go out at the commit either way.
  const notify = async (counts: Map<string, [number, string]>) => {
    const reads = changed.filter((id) => !counts.has(id));
    for (let n = 0; n < reads.length; n += IDS_PER_NOTIFY) {
      await client.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify({ r: me, i: reads.slice(n, n + IDS_PER_NOTIFY) } satisfies ChangeNotice)]);
    }
    const entries = [...counts];
    for (let n = 0; n < entries.length; n += COUNTS_PER_NOTIFY) {
      await client.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify({ r: me, i: [], c: Object.fromEntries(entries.slice(n, n + COUNTS_PER_NOTIFY)) } satisfies ChangeNotice)]);
    }
  };
  const withLines = new Set([...appends.map((a) => a.incident_id), ...out.folds.map((f) => f.into)]);
  const counts = new Map<string, [number, string]>();
  const countChanged = (id: string, occurrences: number, lastSeen: string) => {
    if (!withLines.has(id) && (batch.countOnly.has(id) || !batch.puts.has(id))) counts.set(id, [occurrences, lastSeen]);
  };
  // Last before the commit: the rows other relays update too (the same faults' repeats) stay locked
  // for two round trips, not for the lines and notifications as well (a notification goes out at
  // the commit wherever it is sent).
  for (const r of endedFirst) countChanged(r.incident_id, r.occurrences, r.last_seen);
  if (updates.length) {
    for (const r of await updateIncidents(client, batch, updates, out, me)) countChanged(r.incident_id, r.occurrences, r.last_seen);
  }
  if (bumps.length) {
    const bumped = await client.query<{ incident_id: string; occurrences: number; last_seen: string }>(
      `UPDATE incidents AS i SET occurrences = GREATEST(1, i.occurrences + (x->>'added')::integer)
         FROM jsonb_array_elements($1::jsonb) AS x WHERE i.incident_id = x->>'id' RETURNING i.incident_id, i.occurrences, i.last_seen`,
      [JSON.stringify(bumps)],
    );
    for (const r of bumped.rows) {
      out.totals.set(r.incident_id, r.occurrences);
      countChanged(r.incident_id, r.occurrences, r.last_seen);
    }
  }
  await notify(counts);

  return out;
}

interface UpdatedRow {
  incident_id: string;
  owner: string;
  occurrences: number;
  last_seen: string;
}

/** Known incidents updated: only the owner's record is written; anyone's repeats are added. */
async function updateIncidents(client: pg.PoolClient, batch: Batch, docs: Incident[], out: Written, me: string): Promise<UpdatedRow[]> {
  const rows = docs.map((doc) => ({ doc, added: batch.added.get(doc.incident_id) ?? 0 }));
  const updated = await client.query<UpdatedRow>(
    `UPDATE incidents AS i SET
       doc         = CASE WHEN i.owner = $3 THEN x->'doc' ELSE i.doc END,
       state       = CASE WHEN i.owner = $3 THEN x->'doc'->>'state' ELSE i.state END,
       terminal    = CASE WHEN i.owner = $3 THEN (x->'doc'->>'state') = ANY($2::text[]) ELSE i.terminal END,
       updated_at  = CASE WHEN i.owner = $3 THEN x->'doc'->>'updated_at' ELSE i.updated_at END,
       -- A repeat answered 503 is taken back (a negative count): the sender's retry is the one counted.
       occurrences = GREATEST(1, i.occurrences + (x->>'added')::integer),
       last_seen   = GREATEST(i.last_seen, x->'doc'->>'last_seen')
     FROM jsonb_array_elements($1::jsonb) AS x
     WHERE i.incident_id = x->'doc'->>'incident_id'
     RETURNING i.incident_id, i.owner, i.occurrences, i.last_seen`,
    [JSON.stringify(rows), TERMINAL, me],
  );
  for (const r of updated.rows) {
    out.totals.set(r.incident_id, r.occurrences);
    if (r.owner !== me) out.foreign.push(r.incident_id);
  }
  out.missing.push(...docs.filter((d) => !out.totals.has(d.incident_id)).map((d) => d.incident_id));
  return updated.rows;
}

/**
 * Why the database refused these inserts, each settled: the same incident already written (an
 * earlier commit whose answer was lost, or adopted since): an update; another incident under the
 * same id: a collision; another open incident for the same fault: a fold. Returns those that met
 * a survivor gone meanwhile, to be inserted again.
 */
async function placeRefused(client: pg.PoolClient, refused: Incident[], updates: Incident[], out: Written, me: string): Promise<Incident[]> {
  const byId = await client.query<{ incident_id: string; dedup_key: string; created_at: string }>(
    'SELECT incident_id, dedup_key, created_at FROM incidents WHERE incident_id = ANY($1)',
    [refused.map((d) => d.incident_id)],
  );
  const held = new Map(byId.rows.map((r) => [r.incident_id, r]));
  const byFault: Incident[] = [];
  for (const doc of refused) {
    const row = held.get(doc.incident_id);
    if (!row) byFault.push(doc);
    else if (sameIncident(doc, row)) updates.push(doc);
    else out.collisions.push(doc.incident_id);
  }
  if (!byFault.length) return [];
  // The survivor's row is locked until this transaction ends: it cannot finish under the fold.
  const open = await client.query<{ incident_id: string; dedup_key: string }>(
    'SELECT incident_id, dedup_key FROM incidents WHERE dedup_key = ANY($1) AND NOT terminal FOR UPDATE',
    [byFault.map((d) => d.dedup_key)],
  );
  const survivors = new Map(open.rows.map((r) => [r.dedup_key, r.incident_id]));
  const again: Incident[] = [];
  for (const doc of byFault) {
    const into = survivors.get(doc.dedup_key);
    if (!into) {
      again.push(doc);
      continue;
    }
    const res = await client.query<{ occurrences: number }>(
      'UPDATE incidents SET occurrences = occurrences + $2, last_seen = GREATEST(last_seen, $3) WHERE incident_id = $1 RETURNING occurrences',
      [into, doc.occurrences, doc.last_seen],
    );
    const entry: TimelineEntry = {
      at: new Date().toISOString(),
      type: entries.alertFolded.name,
      message: `A relay that could not reach the database took this fault as ${doc.incident_id} meanwhile: its ${doc.occurrences === 1 ? 'alert is' : `${doc.occurrences} alerts are`} counted here, and ${doc.incident_id} is dropped`,
      folded_incident_id: doc.incident_id,
      occurrences: doc.occurrences,
    };
    await client.query('INSERT INTO timeline (incident_id, relay_id, entry) VALUES ($1, $2, $3)', [into, foldWriter(me), JSON.stringify(entry)]);
    out.totals.set(into, res.rows[0]?.occurrences ?? 0);
    out.folds.push({ from: doc, into, occurrences: doc.occurrences });
  }
  return again;
}
