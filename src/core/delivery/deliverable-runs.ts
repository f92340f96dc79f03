import type { Incidents } from '../incidents/service';
import { createRunQueue } from './run-queue';

/**
 * The runs this relay delivers, kept from each incident's changes rather than read off every open
 * incident per submit: how many hold a slot, and which queued ones wait for one.
 */
export function deliverableRuns(incidents: Incidents, inFlight: ReadonlyMap<string, unknown>, mayDeliver: (incidentId: string) => boolean) {
  const runs = createRunQueue();
  for (const incident of incidents.open()) runs.note(incident);
  const offWatch = incidents.watch((incident) => runs.note(incident));
  return {
    offWatch,
    activeCount: () => {
      let n = inFlight.size;
      for (const id of runs.active()) if (mayDeliver(id)) n += 1;
      return n;
    },
    /** Queued incidents this relay may deliver and is not delivering yet, first in first out. */
    *queue(): Generator<string> {
      for (const id of runs.queued()) if (!inFlight.has(id) && mayDeliver(id)) yield id;
    },
  };
}
