import type { Approval, ApprovalRequest, Incident, PublicIncident, TimelineEntry } from './model';

/** Everything the relay tells the tray, the renderer, notifications and logs. */
export interface RelayEvents extends Record<string, unknown> {
  'incident.created': { incident: PublicIncident };
  'incident.updated': { incident: PublicIncident; previous_state: Incident['state'] };
  'incident.timeline': { incident_id: string; entry: TimelineEntry };
  /** The tray turns this into a native notification with Approve / Deny. */
  'approval.requested': { incident: PublicIncident; request: ApprovalRequest };
  'approval.decided': { incident: PublicIncident; approval: Approval };
  'health.runtime': { ok: boolean; error?: string };
}
