import type { Incident, PublicIncident, TimelineEntry } from './model';

/** Everything the relay tells the tray, the renderer, notifications and logs. */
export interface RelayEvents extends Record<string, unknown> {
  'incident.created': { incident: PublicIncident };
  'incident.updated': { incident: PublicIncident; previous_state: Incident['state'] };
  'incident.timeline': { incident_id: string; entry: TimelineEntry };
  'health.runtime': { ok: boolean; error?: string };
}
