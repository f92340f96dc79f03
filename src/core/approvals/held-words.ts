import type { Logger } from 'pino';
import type { Clock } from '../clock';
import { entries } from '../events/timeline-entries';
import type { Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import { isQuarantineWait, type ChangeWait, type HeldRequest, type HeldWait, type QuarantineWait } from './held-requests';
import type { ApprovalRequestInput, RequestResult } from './types';

/** What a held request waits for, as the timeline's `approval.held` and `approval.unheld` carry it. */
export function heldData(w: HeldWait) {
  return isQuarantineWait(w) ? { quarantined_since: w.since, quarantine_reason: w.reason } : { waiting_for_incident: w.incident_id, waiting_for_change: w.change_id };
}

/** The request as the store keeps it (its preview only when it has one). */
export function heldRecord(incidentId: string, input: ApprovalRequestInput, waitingFor: HeldWait, at: string): HeldRequest {
  const { preview, ...rest } = input;
  return { incident_id: incidentId, input: { ...rest, ...(preview ? { preview } : {}) }, waiting_for: waitingFor, held_at: at };
}

export const holdOnChangeText = (device: string, w: ChangeWait, deadline: string) =>
  `Held: ${device} has change ${w.change_id} of ${w.incident_id} provisional until ${deadline}; this request is asked when that change is confirmed or rolled back`;

export const holdOnQuarantineText = (q: QuarantineWait) =>
  `Held: the plan's device ${q.device} is quarantined since ${q.since} (${q.reason}); no card is posted and nothing is applied on any of its devices until a person clears ${q.device} (POST /devices/${q.device}/clear, the tray or /ui), then the plan is asked`;

export function unheldText(w: HeldWait, device: string | undefined): string {
  if (isQuarantineWait(w)) return `${w.device} was cleared: the plan held for it is asked now`;
  return `${w.incident_id}'s change ${w.change_id}${device ? ` on ${device}` : ''} is over: this request is asked now`;
}

/** A quarantined device's own request: no card, the run escalated with the quarantine's reason. */
export function escalateQuarantined(
  deps: { incidents: Incidents; clock: Clock; logger: Logger; tellRoom(incidentId: string, markdown: string): void },
  incident: Incident,
  reason: string,
  device: string,
): RequestResult {
  const at = deps.clock.now().toISOString();
  const summary = `Escalated: ${reason}. No card was posted and nothing was applied; an approver clears the device (POST /devices/${device}/clear, the tray or /ui) once it has been checked.`;
  deps.incidents.record(incident.incident_id, entries.approvalQuarantined, summary, { device, reason });
  deps.incidents.transition(incident.incident_id, 'escalate', () => ({ outcome: { kind: 'escalated', summary, at } }));
  deps.logger.warn({ incident_id: incident.incident_id, device }, 'approval refused: the device is quarantined; no card posted');
  deps.tellRoom(incident.incident_id, `⛔ **${incident.incident_id}** on \`${device}\`: ${summary}`);
  return { status: 'escalated_quarantined', device, reason };
}
