import type { EntryHead } from '../events/define';
import { entries, isEntry } from '../events/timeline-entries';

/**
 * What a held request waits for, read from the incident's timeline: another incident's change on
 * its device, or (a plan) a quarantined device's clear. Shared with the renderer: nothing here runs
 * only in Node.
 */
export type HeldBehind =
  | { kind: 'change'; device: string; incident: string; change: string; message: string }
  | { kind: 'quarantine'; device: string; since: string; reason: string; message: string };

type Entry = EntryHead & Record<string, unknown>;

/** The newest `approval.held` not followed by the request's own progress (asked, or escalated), if any. */
export function heldBehind(timeline: readonly Entry[]): HeldBehind | undefined {
  for (let i = timeline.length - 1; i >= 0; i--) {
    const e = timeline[i]!;
    if (isEntry(e, entries.approvalUnheld) || isEntry(e, entries.approvalRequested) || isEntry(e, entries.approvalQuarantined)) return undefined;
    if (!isEntry(e, entries.approvalHeld)) continue;
    const device = typeof e.device === 'string' ? e.device : '';
    if (typeof e.waiting_for_incident === 'string' && typeof e.waiting_for_change === 'string') {
      return { kind: 'change', device, incident: e.waiting_for_incident, change: e.waiting_for_change, message: e.message };
    }
    if (typeof e.quarantined_since === 'string' && typeof e.quarantine_reason === 'string') {
      return { kind: 'quarantine', device, since: e.quarantined_since, reason: e.quarantine_reason, message: e.message };
    }
  }
  return undefined;
}
