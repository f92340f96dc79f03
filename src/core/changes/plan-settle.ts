import type { ChangeStatus } from './device-contract';
import { changeOutcomeText, endingOfReason, type ChangeEnding, type ChangeRecord } from '../incidents/change';
import type { Incidents } from '../incidents/service';
import { entries } from '../events/timeline-entries';

/** A plan's change record for a device the apply left provisional (the same record a single change has). */
export function pendingRecord(status: ChangeStatus, confirmWithinS: number, at: string): ChangeRecord {
  return { change_id: status.change_id, device: status.device, state: 'pending', deadline: status.deadline, confirm_within_s: confirmWithinS, applied_at: at, ended_at: null, ended_by: null, person: null, detail: null };
}

/**
 * The device tool server's word on one change of a plan, as the record says it: confirmed, rolled
 * back (read back by the server) or a rollback that failed. A status still pending changes nothing.
 */
export function recordOf(change: ChangeRecord, status: ChangeStatus, ending: ChangeEnding, at: string, person?: string): ChangeRecord {
  if (status.state === 'pending' || change.state !== 'pending') return change;
  // A confirm (or a plain request) that found the change already put back says why the server put it back.
  const asked = ending === 'requested' || ending === 'post_check' || ending === 'person';
  const ended_by: ChangeEnding = status.state === 'confirmed' ? ending : status.reason && status.reason !== 'requested' && asked ? endingOfReason(status.reason) : ending;
  return { ...change, state: status.state, ended_by, ended_at: at, person: person ?? null, detail: status.detail ?? null };
}

/** Writes the plan's changes on the incident, and one timeline entry per device whose change ended now. */
export function writePlanChanges(incidents: Incidents, incidentId: string, before: readonly ChangeRecord[], after: readonly ChangeRecord[]): ChangeRecord[] {
  incidents.update(incidentId, () => ({ plan_changes: [...after] }));
  const ended: ChangeRecord[] = [];
  after.forEach((change, i) => {
    if (before[i]?.state !== 'pending' || change.state === 'pending') return;
    ended.push(change);
    const type = change.state === 'confirmed' ? entries.deviceChangeConfirmed : entries.deviceChangeRolledBack;
    const detail = change.detail && change.state !== 'confirmed' ? ` (${change.detail})` : '';
    incidents.record(incidentId, type, `Change on ${change.device} ${changeOutcomeText(change)}${detail}`, { change_id: change.change_id, device: change.device, state: change.state, reason: change.ended_by ?? 'unknown', ...(change.person ? { by: change.person } : {}) });
  });
  return ended;
}

/** One line per device for the plan's entries and notices: "R1 rolled back: post-check failed; R2 …". */
export function planResultText(changes: readonly ChangeRecord[]): string {
  return changes.map((c) => `${c.device} ${changeOutcomeText(c)}`).join('; ');
}

export const planResults = (changes: readonly ChangeRecord[]) => changes.map((c) => ({ device: c.device, change_id: c.change_id, state: c.state, ...(c.detail ? { detail: c.detail } : {}) }));
