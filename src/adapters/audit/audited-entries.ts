import { entries, isEntry } from '../../core/events/timeline-entries';
import type { TimelineEntry } from '../../core/incidents/model';

/**
 * Which timeline entries are audit events (src/adapters/audit/derive.ts says what each becomes), and how far
 * an incident's have got, read from the timeline alone: the relay and the renderer (tray, /ui) share
 * this file, so it imports nothing that runs only in Node.
 */
const AUDITED: ReadonlySet<string> = new Set(
  [
    entries.approvalDecided,
    entries.approvalExpired,
    entries.approvalSkipped,
    entries.approvalVote,
    entries.incidentAcknowledged,
    entries.deviceConfigApplied,
    entries.deviceConfigFailed,
    entries.deviceConfigInterrupted,
    entries.deviceChangeConfirmed,
    entries.deviceChangeRolledBack,
    entries.policyVerdict,
    entries.policyEscalated,
    entries.policyRechecked,
    entries.pageSent,
    entries.pageFailed,
    entries.evidenceExported,
  ].map((d) => d.name),
);

export const isAuditedEntry = (entry: Pick<TimelineEntry, 'type'> & Record<string, unknown>): boolean =>
  AUDITED.has(entry.type) || (entry.type === entries.stateChanged.name && entry.to === 'escalated');

export interface AuditView {
  /** Audit events the incident's timeline holds. */
  events: number;
  /** Per sink that has reported on this incident: delivered, refused for good, or waiting (and why). */
  sinks: { sink: string; delivered: number; failed: number; waiting: string | null }[];
  /** `sent`: every event reached every sink that reported; `failed`: one was refused for good. */
  state: 'none' | 'pending' | 'sent' | 'failed';
}

const ids = (entry: TimelineEntry): string[] => (Array.isArray(entry.ids) ? (entry.ids as unknown[]).filter((i): i is string => typeof i === 'string') : []);

export function auditViewOf(timeline: readonly TimelineEntry[]): AuditView {
  const events = timeline.filter(isAuditedEntry).length;
  const bySink = new Map<string, { delivered: Set<string>; failed: Set<string>; waiting: string | null }>();
  for (const entry of timeline) {
    const delivered = isEntry(entry, entries.auditDelivered);
    if (!delivered && !isEntry(entry, entries.auditFailed) && !isEntry(entry, entries.auditWaiting)) continue;
    const sink = typeof entry.sink === 'string' ? entry.sink : 'unknown';
    const s = bySink.get(sink) ?? { delivered: new Set<string>(), failed: new Set<string>(), waiting: null };
    bySink.set(sink, s);
    if (isEntry(entry, entries.auditWaiting)) s.waiting = typeof entry.reason === 'string' ? entry.reason : 'waiting';
    else {
      for (const id of ids(entry)) (delivered ? s.delivered : s.failed).add(id);
      if (delivered) s.waiting = null;
    }
  }
  const sinks = [...bySink].map(([sink, s]) => ({ sink, delivered: s.delivered.size, failed: s.failed.size, waiting: s.delivered.size + s.failed.size >= events ? null : s.waiting }));
  const state: AuditView['state'] =
    sinks.length === 0 ? (events === 0 ? 'none' : 'pending') : sinks.some((s) => s.failed > 0) ? 'failed' : sinks.every((s) => s.delivered >= events) ? 'sent' : 'pending';
  return { events, sinks, state };
}

/** One line for a person: "Audit: 6 events delivered (splunk_hec, syslog)". */
export function auditLine(view: AuditView): string | null {
  if (view.sinks.length === 0) return null;
  const names = view.sinks.map((s) => s.sink).join(', ');
  if (view.state === 'sent') return `Audit: ${view.events} event${view.events === 1 ? '' : 's'} delivered (${names})`;
  if (view.state === 'failed') return `Audit: refused by ${view.sinks.filter((s) => s.failed > 0).map((s) => `${s.sink} (${s.failed})`).join(', ')}`;
  const waiting = view.sinks.filter((s) => s.delivered < view.events);
  return `Audit: waiting for ${waiting.map((s) => `${s.sink} (${view.events - s.delivered} of ${view.events}${s.waiting ? `: ${s.waiting}` : ''})`).join(', ')}`;
}
