import { readFileSync } from 'node:fs';
import { incidentSchema, isTerminal, timelineEntrySchema, type Incident, type TimelineEntry } from './model';

/** What a lazy write changes (src/relay/intake.ts, src/adapters/agent-tools/run-progress.ts), as a repeats-log line holds it. */
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

/**
 * Opens each run of lines the store appended after it last set the log aside: the record format
 * they were written in. Records after a header with this build's stamp are the store's own
 * writes, taken without a schema check each; any others (no header, another build) are checked.
 */
export interface HeaderLine {
  stamp: string;
}

/** Folds the writes logged before the last stop into the index, in order, adding the ids it changed to `touched`; true when there was a log. */
export function replayRepeats(path: string, index: Map<string, Incident>, stamp: string, touched?: Set<string>): boolean {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  let trusted = false;
  for (const raw of text.split('\n')) {
    let line: LazyLine | RecordLine | HeaderLine;
    try {
      line = JSON.parse(raw) as LazyLine | RecordLine | HeaderLine;
    } catch {
      continue; // an empty or torn line (a crash mid-write): everything before it is intact
    }
    if (typeof line !== 'object' || line === null) continue;
    if ('stamp' in line) {
      trusted = line.stamp === stamp;
      continue;
    }
    if ('f' in line) {
      const record = trusted && typeof line.f?.incident_id === 'string' ? line.f : incidentSchema.safeParse(line.f).data;
      if (!record) continue;
      // An incident the archive already holds as finished is not reopened by a line written before it ended.
      const held = index.get(record.incident_id);
      if (!held || !isTerminal(held.state) || record.updated_at > held.updated_at) {
        index.set(record.incident_id, record);
        touched?.add(record.incident_id);
      }
      continue;
    }
    const cur = index.get(line.i);
    if (!cur || typeof line.n !== 'number') continue;
    const newer = line.u > cur.updated_at;
    touched?.add(line.i);
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
