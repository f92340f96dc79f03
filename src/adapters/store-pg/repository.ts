import type pg from 'pg';
import { incidentSchema, timelineEntrySchema, type Incident, type TimelineEntry } from '../../core/incidents/model';

/**
 * The team store's reads of PostgreSQL, in one place: what a relay loads at start, what it reads
 * back when another relay changed an incident, and its tag. The writes are write-batch.ts.
 */

export interface IncidentRow {
  incident_id: string;
  doc: unknown;
  occurrences: number;
  last_seen: string;
  owner: string;
}

/** A stored incident as the relay holds it: the count and last sighting are columns (any relay adds to them). */
export const readRow = (row: IncidentRow): Incident | undefined => {
  const parsed = incidentSchema.safeParse({ ...(row.doc as object), occurrences: row.occurrences, last_seen: row.last_seen });
  return parsed.success ? parsed.data : undefined;
};

export interface TimelineRow {
  incident_id: string;
  seq: string;
  relay_id: string;
  entry: unknown;
}

export const readEntry = (entry: unknown): TimelineEntry | undefined => {
  const parsed = timelineEntrySchema.safeParse(entry);
  return parsed.success ? parsed.data : undefined;
};

/** This start's tag (src/core/incidents/ids.ts): a number no other start of any relay on the database gets. */
export async function takeRelayNumber(pool: pg.Pool): Promise<string> {
  const res = await pool.query<{ n: string }>("SELECT nextval('relay_tags')::text AS n");
  return res.rows[0]?.n as string;
}

/**
 * What a relay holds at start: every open incident and the newest `retention` finished ones (older
 * ones are deleted, with their timelines, as the files keep them).
 */
export async function loadIndex(pool: pg.Pool, retention: number): Promise<IncidentRow[]> {
  await pool.query(
    `WITH old AS (
       DELETE FROM incidents WHERE incident_id IN (SELECT incident_id FROM incidents WHERE terminal ORDER BY updated_at DESC OFFSET $1)
       RETURNING incident_id)
     DELETE FROM timeline WHERE incident_id IN (SELECT incident_id FROM old)`,
    [retention],
  );
  const { rows } = await pool.query<IncidentRow>(
    `(SELECT incident_id, doc, occurrences, last_seen, owner FROM incidents WHERE NOT terminal)
     UNION ALL
     (SELECT incident_id, doc, occurrences, last_seen, owner FROM incidents WHERE terminal ORDER BY updated_at DESC LIMIT $1)`,
    [retention],
  );
  return rows;
}

/** The timelines of these incidents, every relay's lines, in order. */
export async function readTimelines(pool: pg.Pool, ids: readonly string[]): Promise<TimelineRow[]> {
  if (!ids.length) return [];
  return (await pool.query<TimelineRow>('SELECT incident_id, seq, relay_id, entry FROM timeline WHERE incident_id = ANY($1) ORDER BY seq', [ids])).rows;
}

/** Incidents as the database holds them now, and the timeline lines other relays wrote for them. */
export async function readIncidents(pool: pg.Pool, ids: readonly string[], me: string): Promise<{ rows: IncidentRow[]; lines: TimelineRow[] }> {
  // One statement, so one round trip and one snapshot: reading other relays' changes is the work a
  // second relay adds to the team, and the records and their lines were two queries each time.
  const res = await pool.query<IncidentRow & { seq: string | null; relay_id: string | null; entry: unknown }>(
    `SELECT incident_id, doc, occurrences, last_seen, owner, NULL::bigint AS seq, NULL::text AS relay_id, NULL::jsonb AS entry
       FROM incidents WHERE incident_id = ANY($1)
     UNION ALL
     SELECT incident_id, NULL, NULL, NULL, NULL, seq, relay_id, entry
       FROM timeline WHERE incident_id = ANY($1) AND relay_id <> $2
     ORDER BY seq NULLS FIRST`,
    [ids, me],
  );
  const rows: IncidentRow[] = [];
  const lines: TimelineRow[] = [];
  for (const r of res.rows) {
    if (r.seq === null) rows.push({ incident_id: r.incident_id, doc: r.doc, occurrences: r.occurrences, last_seen: r.last_seen, owner: r.owner });
    else lines.push({ incident_id: r.incident_id, seq: r.seq, relay_id: r.relay_id as string, entry: r.entry });
  }
  return { rows, lines };
}

/** The whole timeline of any stored incident (a finished one's is not kept in memory). */
export async function readTimeline(pool: pg.Pool, id: string): Promise<TimelineEntry[]> {
  const res = await pool.query<{ entry: unknown }>('SELECT entry FROM timeline WHERE incident_id = $1 ORDER BY seq', [id]);
  return res.rows.flatMap((r) => {
    const entry = readEntry(r.entry);
    return entry ? [entry] : [];
  });
}
