import { randomBytes } from 'node:crypto';
import { DeviceToolError, type ChangeStatus } from './device-contract';
import { changeOutcomeText, endingOfReason, type ChangeEnding, type ChangeRecord } from '../incidents/change';
import type { Incidents } from '../incidents/service';
import { entries } from '../events/timeline-entries';

/** A plan's change record for a device the apply left provisional (the same record a single change has). */
export function pendingRecord(status: ChangeStatus, confirmWithinS: number, at: string): ChangeRecord {
  return { change_id: status.change_id, device: status.device, state: 'pending', deadline: status.deadline, confirm_within_s: confirmWithinS, applied_at: at, ended_at: null, ended_by: null, person: null, detail: null };
}

/**
 * A plan's device before its first line is sent: under a change id the relay chose, so whatever
 * happens to the relay or the device tool server next, the relay knows to ask the server about it.
 * Its deadline is the relay's own reckoning until the server's answer gives the server's.
 */
export function intentRecord(device: string, confirmWithinS: number, at: Date): ChangeRecord {
  const deadline = new Date(at.getTime() + confirmWithinS * 1000).toISOString();
  return { change_id: `chg-${randomBytes(6).toString('hex')}`, device, state: 'pending', deadline, confirm_within_s: confirmWithinS, applied_at: at.toISOString(), ended_at: null, ended_by: null, person: null, detail: null, unanswered: true };
}

/**
 * A device whose apply failed with the server's own answer: nothing of the plan is on it when nothing
 * was sent or it was put back as before (read back); ROLLBACK FAILED when it was read back still
 * different. Undefined when the answer does not say (the call broke off): the server is asked then.
 */
export function failedRecord(intent: ChangeRecord, error: unknown, at: string): ChangeRecord | undefined {
  if (!(error instanceof DeviceToolError)) return undefined;
  const why = error.message.slice(0, 500);
  if (!error.reached) return { ...intent, state: 'not_applied', ended_at: at, detail: `nothing was sent: ${why}` };
  if (error.failure.restored === undefined) return undefined;
  const state = error.failure.restored ? 'rolled_back' : 'rollback_failed';
  return { ...intent, state, ended_at: at, ended_by: 'apply_failed', detail: why };
}

/** The server has no record of a change the relay never had an answer for: none of its lines was sent. */
export function neverTaken(change: ChangeRecord, at: string): ChangeRecord {
  return { ...change, state: 'not_applied', ended_at: at, detail: `the device tool server has no record of change ${change.change_id}: none of its lines was sent` };
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
    if (change.state === 'not_applied') {
      incidents.record(incidentId, entries.deviceChangeNotApplied, `${change.device} ${changeOutcomeText(change)}`, { change_id: change.change_id, device: change.device, reason: change.detail ?? 'unknown' });
      return;
    }
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
