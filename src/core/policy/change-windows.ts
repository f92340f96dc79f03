import type { ChangeRecord } from './schema';
import { instantOf } from './zoned-time';

/**
 * A change window the policy honours: one-off change records from YAML and recurring maintenance
 * windows from an iCalendar file alike. It names a device and the alert fields it covers; a change
 * to what it names while one of its occurrences is open goes to its owner, never a card.
 */
export interface ChangeWindow {
  id: string;
  /** The rule as a person finds it: "change record CHG-2026-1187" or "maintenance window <UID>". */
  label: string;
  /** What it is for, in its author's words (a calendar event's SUMMARY). */
  summary?: string;
  device: string;
  match: Record<string, string>;
  owner: string;
  /** The occurrence open at `at` (epoch ms), as instants; undefined when none is. */
  openAt(at: number): { from: number; to: number } | undefined;
}

/** A YAML change record as a window: open between its from and to while scheduled or in progress. */
export function recordWindow(record: ChangeRecord, zone: string): ChangeWindow {
  const from = instantOf(record.from, zone);
  const to = instantOf(record.to, zone);
  const active = record.status === 'scheduled' || record.status === 'in_progress';
  return {
    id: record.id,
    label: `change record ${record.id}`,
    device: record.device,
    match: record.match,
    owner: record.owner,
    openAt: (at) => (active && from <= at && at < to ? { from, to } : undefined),
  };
}

/** The first window that names this device and every one of its fields as the alert has them, open at `at`. */
export function openWindow(windows: ChangeWindow[], device: string, vars: Record<string, string>, at: number) {
  for (const w of windows) {
    if (w.device !== device || !Object.entries(w.match).every(([k, v]) => vars[k] === v)) continue;
    const open = w.openAt(at);
    if (open) return { window: w, ...open };
  }
  return undefined;
}
