import type { Incident, TimelineEntry } from '../../src/core/incidents/model';
import type { Relay } from '../../src/relay/create-relay';

/** Resolves once `holds` is true for the incident, re-checked on each of its timeline events. */
export function untilIncident(relay: Relay, id: string, holds: (incident: Incident, timeline: TimelineEntry[]) => boolean): Promise<Incident> {
  return new Promise((resolve) => {
    const check = () => {
      const incident = relay.incidents.get(id);
      if (!incident || !holds(incident, relay.incidents.timeline(id))) return false;
      off();
      resolve(incident);
      return true;
    };
    const off = relay.bus.subscribe('incident.timeline', ({ incident_id }) => void (incident_id === id && check()));
    check();
  });
}
