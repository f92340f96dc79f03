import type { TimelineEntry } from '../../src/core/incidents/model';
import { entries, isEntry } from '../../src/core/events/timeline-entries';

/** One row of the timeline: an entry, or a tool call with its start and end together. */
export type TimelineRow =
  | { kind: 'entry'; entry: TimelineEntry; repeats: number }
  | { kind: 'tool'; start: TimelineEntry; end?: TimelineEntry; durationMs?: number };

const TOOL_END: ReadonlySet<string> = new Set([entries.toolCompleted.name, entries.toolError.name]);
/** Status noise a run emits over and over; a repeat right after the same line adds nothing. */
const REPEATABLE = /^session\.(idle|status)$/;

/**
 * The timeline as a person reads it: a tool call's start and end in one row (with how long it took),
 * and a run of identical idle/status lines as one row with a count. Pure, for the tests.
 */
export function groupTimeline(timeline: readonly TimelineEntry[]): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const openCalls = new Map<string, Extract<TimelineRow, { kind: 'tool' }>>();
  for (const entry of timeline) {
    const callId = typeof entry.call_id === 'string' ? entry.call_id : undefined;
    if (isEntry(entry, entries.toolRunning) && callId) {
      const row = { kind: 'tool' as const, start: entry };
      openCalls.set(callId, row);
      rows.push(row);
      continue;
    }
    if (TOOL_END.has(entry.type) && callId) {
      const row = openCalls.get(callId);
      if (row) {
        row.end = entry;
        row.durationMs = Date.parse(entry.at) - Date.parse(row.start.at);
        openCalls.delete(callId);
        continue;
      }
      rows.push({ kind: 'tool', start: entry, end: entry });
      continue;
    }
    const last = rows.at(-1);
    if (REPEATABLE.test(entry.type) && last?.kind === 'entry' && last.entry.type === entry.type && last.entry.message === entry.message) {
      last.repeats++;
      continue;
    }
    rows.push({ kind: 'entry', entry, repeats: 1 });
  }
  return rows;
}
