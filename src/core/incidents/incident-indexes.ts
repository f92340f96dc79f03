import { entries, isEntry } from '../events/timeline-entries';
import { isTerminal, type Incident } from './model';
import type { IncidentStore } from './store';

/**
 * What the hot paths look incidents up by: the open incident of a fault (its dedup key) and the
 * incident of a root agent session. Built once from the store at start, then kept by every write.
 */
export function incidentIndexes(store: IncidentStore) {
  const openByKey = new Map<string, string>();
  const bySession = new Map<string, string>();
  // Every stored incident once, unsorted: a start with 100,000 of them need not order them.
  for (const incident of [...(store.values?.() ?? store.list())]) {
    if (incident.session_id) bySession.set(incident.session_id, incident.incident_id);
    if (isTerminal(incident.state)) continue;
    openByKey.set(incident.dedup_key, incident.incident_id);
    // Repeats are written to the index lazily; the timeline has every one of them.
    const repeats = store.timeline(incident.incident_id).filter((e) => isEntry(e, entries.alertRepeated));
    const counted = Number(repeats.at(-1)?.occurrences ?? 0);
    if (counted > incident.occurrences) store.put({ ...incident, occurrences: counted });
  }
  const found = (id: string | undefined) => (id ? store.get(id) : undefined);
  return {
    /** A new incident is the open one of its fault. */
    opened(incident: Incident) {
      openByKey.set(incident.dedup_key, incident.incident_id);
    },
    /** The incident as written here: its session found, and a finished run no longer the open one. */
    written(next: Incident) {
      if (next.session_id) bySession.set(next.session_id, next.incident_id);
      if (isTerminal(next.state) && openByKey.get(next.dedup_key) === next.incident_id) openByKey.delete(next.dedup_key);
    },
    /** The incident as another relay wrote it: open again or finished there. */
    remote(incident: Incident) {
      this.written(incident);
      if (!isTerminal(incident.state)) openByKey.set(incident.dedup_key, incident.incident_id);
    },
    open: (): Incident[] => [...openByKey.values()].map((id) => store.get(id)).filter((i): i is Incident => i !== undefined),
    bySession: (sessionId: string) => found(bySession.get(sessionId)),
    findOpen: (dedupKey: string) => found(openByKey.get(dedupKey)),
  };
}
