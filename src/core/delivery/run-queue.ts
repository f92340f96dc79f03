import type { Incident } from '../incidents/model';

const ACTIVE_STATES: ReadonlySet<Incident['state']> = new Set(['running', 'awaiting_approval', 'approved', 'denied']);

interface Entry {
  id: string;
  created_at: string;
}

/**
 * The dispatcher's own view of the incidents it delivers: the queued ones in first-in-first-out
 * order and the ones whose run holds a slot, kept up to date from each incident's changes, so a
 * submit costs the same with ten open incidents or a hundred thousand.
 */
export function createRunQueue() {
  /** Queued ids in delivery order; ids that left the queue stay until passed over (`stale`). */
  let order: Entry[] = [];
  let head = 0;
  /** Each queued id's live entry: one that left and came back has a new one, and the old is stale. */
  const queued = new Map<string, Entry>();
  const live = (e: Entry) => queued.get(e.id) === e;
  const active = new Set<string>();
  let stale = 0;

  const insert = (entry: Entry) => {
    const last = order.at(-1);
    // Alerts arrive in time order: almost always the end.
    if (!last || !earlier(entry, last)) {
      order.push(entry);
      return;
    }
    let lo = head;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (earlier(entry, order[mid] as Entry)) hi = mid;
      else lo = mid + 1;
    }
    order.splice(lo, 0, entry);
  };

  /** Drops what left the queue once it is most of the array, so neither walk nor memory grows with it. */
  const compact = () => {
    if (stale < 64 || stale * 2 < order.length - head) return;
    order = order.slice(head).filter(live);
    head = 0;
    stale = 0;
  };

  return {
    /** An incident as it now is (created, changed here or by another relay). */
    note(incident: Pick<Incident, 'incident_id' | 'state' | 'created_at'>) {
      const id = incident.incident_id;
      if (ACTIVE_STATES.has(incident.state)) active.add(id);
      else active.delete(id);
      if (incident.state === 'queued') {
        if (!queued.has(id)) {
          const entry = { id, created_at: incident.created_at };
          queued.set(id, entry);
          insert(entry);
        }
      } else if (queued.delete(id)) {
        stale += 1;
        compact();
      }
    },
    /** Queued ids, first in first out. */
    *queued(): Generator<string> {
      while (head < order.length && !live(order[head] as Entry)) {
        head += 1;
        stale -= 1;
      }
      for (let i = head; i < order.length; i++) {
        const entry = order[i] as Entry;
        if (live(entry)) yield entry.id;
      }
    },
    queuedCount: () => queued.size,
    /** Ids whose run holds a slot (running, or waiting on or acting on a decision). */
    active: (): ReadonlySet<string> => active,
  };
}

/** First in first out: oldest `created_at` first, ties by id, compared as the queue always compared them. */
function earlier(a: Entry, b: Entry): boolean {
  return (a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)) < 0;
}
