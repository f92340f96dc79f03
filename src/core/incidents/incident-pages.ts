import { z } from 'zod';
import { isTerminal, type Incident } from './model';

/** Finished incidents a snapshot carries besides the open ones: the rest is paged by cursor. */
export const RECENT_FINISHED = 100;
/** The largest page of the archive one request gets. */
export const MAX_ARCHIVE_PAGE = 500;

interface Position {
  created_at: string;
  incident_id: string;
}

/** Newest first, ties by id: the order `list()` has (src/core/incidents/store.ts). */
const newer = (a: Position, b: Position) => (b.created_at.localeCompare(a.created_at) || b.incident_id.localeCompare(a.incident_id)) < 0;

/**
 * A cursor names the last incident a page held; the next page starts just after it. Opaque to
 * readers (base64url of JSON), checked against this shape when it comes back.
 */
const positionSchema = z.object({ created_at: z.string().datetime(), incident_id: z.string().min(1).max(64) }).strict();

export const encodeCursor = (at: Position) => Buffer.from(JSON.stringify({ created_at: at.created_at, incident_id: at.incident_id })).toString('base64url');

/** The position a cursor names, or null when it is not one this relay gave out. */
export function decodeCursor(cursor: string): Position | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return null;
  try {
    const parsed = positionSchema.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The `limit` newest finished incidents older than `after` (all when null), newest first, with the
 * cursor of the next page (null when there is none). One pass and a bounded sorted window: never a
 * sort of the whole store, whatever it holds.
 */
export function finishedPage(all: Iterable<Incident>, after: Position | null, limit: number, keepIt: (i: Incident) => boolean = (i) => isTerminal(i.state)): { incidents: Incident[]; next_cursor: string | null } {
  const window: Incident[] = [];
  // One more than asked: whether another page follows.
  const keep = limit + 1;
  for (const incident of all) {
    if (!keepIt(incident)) continue;
    if (after && !newer(after, incident)) continue;
    if (window.length === keep && !newer(incident, window[keep - 1] as Incident)) continue;
    let lo = 0;
    let hi = window.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (newer(incident, window[mid] as Incident)) hi = mid;
      else lo = mid + 1;
    }
    window.splice(lo, 0, incident);
    if (window.length > keep) window.pop();
  }
  const more = window.length > limit;
  const incidents = window.slice(0, limit);
  const last = incidents.at(-1);
  return { incidents, next_cursor: more && last ? encodeCursor(last) : null };
}

/**
 * What a reader is given first: every open incident and the `recent` newest finished ones, and
 * the cursor of the finished ones after those.
 */
export function openAndRecent(source: { open(): Incident[]; values(): Iterable<Incident> }, recent = RECENT_FINISHED) {
  const { incidents, next_cursor } = finishedPage(source.values(), null, recent);
  return { incidents: [...source.open(), ...incidents], next_cursor };
}
