import { readFileSync } from 'node:fs';
import { incidentSchema, isTerminal, timelineEntrySchema, type Incident, type TimelineEntry } from './model';

/** What a lazy write changes (src/relay/intake.ts, src/tools/run-progress.ts), as a repeats-log line holds it. */
export interface LazyLine {
  i: string;
  n: number;
  s: string;
  u: string;
  p: Incident['progress'];
}
/** Any other write of an open incident (a delivery, a state change): the record itself. */
export interface RecordLine {
  f: Incident;
}

/** Folds the writes logged before the last stop into the index, in order; true when there was a log. */
export function replayRepeats(path: string, index: Map<string, Incident>): boolean {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  for (const raw of text.split('\n')) {
    let line: LazyLine | RecordLine;
    try {
      line = JSON.parse(raw) as LazyLine | RecordLine;
    } catch {
      continue; // an empty or torn line (a crash mid-write): everything before it is intact
    }
    if ('f' in line) {
      const parsed = incidentSchema.safeParse(line.f);
      // An incident the archive already holds as finished is not reopened by a line written before it ended.
      const held = parsed.success ? index.get(parsed.data.incident_id) : undefined;
      if (parsed.success && (!held || !isTerminal(held.state) || parsed.data.updated_at > held.updated_at)) index.set(parsed.data.incident_id, parsed.data);
      continue;
    }
    const cur = index.get(line.i);
    if (!cur || typeof line.n !== 'number') continue;
    const newer = line.u > cur.updated_at;
    index.set(line.i, {
      ...cur,
      occurrences: Math.max(cur.occurrences, line.n),
      last_seen: line.s > cur.last_seen ? line.s : cur.last_seen,
      ...(newer ? { updated_at: line.u, progress: line.p ?? null } : {}),
    });
  }
  return true;
}

/** A timeline file's entries; a torn last line (a crash mid-write) is skipped. */
export function readTimelineFile(path: string): TimelineEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const out: TimelineEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const parsed = timelineEntrySchema.safeParse(JSON.parse(line));
      if (parsed.success) out.push(parsed.data);
    } catch {
      /* torn line */
    }
  }
  return out;
}
