import type { Incident } from '../../core/incidents/model';

interface Waiter<C> {
  ids: ReadonlySet<string>;
  resolve(changes: C[]): void;
  reject(error: unknown): void;
}

/**
 * Reads of incidents other relays changed, one at a time and applied in order (two reads racing
 * could land the older state last), with every request made while a read runs merged into the
 * next one: under load another relay's notifications arrive faster than one query each can be
 * answered, and a query per notification made the second relay of a team spend its time reading.
 * A request is always answered by a read that began after it was made. Each change goes to the
 * first request that named its incident, so the bus hears of it once.
 */
export function coalescedReads<C extends { incident: Incident }>(read: (ids: readonly string[]) => Promise<C[]>) {
  let waiters: Waiter<C>[] = [];
  let reading = false;

  async function drain(): Promise<void> {
    while (waiters.length) {
      const batch = waiters;
      waiters = [];
      const ids = new Set<string>();
      for (const w of batch) for (const id of w.ids) ids.add(id);
      try {
        const changes = await read([...ids]);
        const told = new Set<string>();
        for (const w of batch) {
          w.resolve(changes.filter((c) => w.ids.has(c.incident.incident_id) && !told.has(c.incident.incident_id) && Boolean(told.add(c.incident.incident_id))));
        }
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    reading = false;
  }

  return function refresh(incidentIds: readonly string[]): Promise<C[]> {
    if (incidentIds.length === 0) return Promise.resolve([]);
    return new Promise<C[]>((resolve, reject) => {
      waiters.push({ ids: new Set(incidentIds), resolve, reject });
      if (reading) return;
      reading = true;
      void drain();
    });
  };
}
