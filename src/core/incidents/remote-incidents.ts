import type { Bus } from '../events/bus';
import type { RelayEvents } from './events';
import type { incidentIndexes } from './incident-indexes';
import { publicIncident, type Incident, type TimelineEntry } from './model';

export type RemoteChange = { incident: Incident; previous: Incident | undefined; entries: readonly TimelineEntry[] };

/**
 * Team relays: what another relay changed, already in the store's memory, followed here as if it were
 * made here: the indexes, the watchers, and the bus (this relay's /events, tray and logs).
 */
export function remoteApplier(deps: { indexes: ReturnType<typeof incidentIndexes>; tell: (incident: Incident, previous: Incident['state'] | undefined) => void; bus: Bus<RelayEvents> }) {
  const { indexes, tell, bus } = deps;
  return (changes: readonly RemoteChange[]): void => {
    for (const { incident, previous, entries } of changes) {
      const id = incident.incident_id;
      indexes.remote(incident);
      tell(incident, previous?.state);
      for (const entry of entries) bus.publish('incident.timeline', { incident_id: id, entry });
      const shown = publicIncident(incident);
      if (!previous) bus.publish('incident.created', { incident: shown });
      else bus.publish('incident.updated', { incident: shown, previous_state: previous.state });
      const request = incident.approval_request;
      if (request?.status === 'pending' && previous?.approval_request?.requested_at !== request.requested_at) bus.publish('approval.requested', { incident: shown, request });
      if (incident.approval && previous?.approval?.at !== incident.approval.at) bus.publish('approval.decided', { incident: shown, approval: incident.approval });
    }
  };
}
