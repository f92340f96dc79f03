import { kindOfType, type EntryKind } from '../../src/core/events/timeline-entries';
import type { TimelineEntry } from '../../src/core/incidents/model';

export type { EntryKind };

export const KIND_LABELS: Record<EntryKind, string> = {
  alert: 'alert',
  state: 'state',
  runtime: 'runtime',
  agent: 'agent',
  tool: 'tool',
  message: 'says',
  notify: 'notify',
  approval: 'approval',
  outcome: 'outcome',
  device: 'device',
  warning: 'warning',
  error: 'error',
};

/** How an entry reads at a glance, as its definition says (`tool.completed`, `notify.final` …). */
export const kindOf = (entry: TimelineEntry): EntryKind => kindOfType(entry.type);

/** Text fields worth showing under the message, in monospace. */
export function detailsOf(entry: TimelineEntry): { label: string; text: string }[] {
  const out: { label: string; text: string }[] = [];
  for (const key of ['input', 'output', 'error', 'command', 'commands', 'prompt'] as const) {
    const v = entry[key];
    if (typeof v === 'string' && v.trim() && v !== entry.message) out.push({ label: key, text: v });
    else if (Array.isArray(v) && v.length) out.push({ label: key, text: v.map(String).join('\n') });
  }
  return out;
}
