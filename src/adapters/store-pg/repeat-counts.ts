import type { Incident } from '../../core/incidents/model';
import type { RemoteChange } from './pg-store';

/** Whether `next` differs from `previous` only in what any relay may write: the count and the last sighting. */
export function countOnly(previous: Incident, next: Incident): boolean {
  for (const key of Object.keys(next) as (keyof Incident)[]) {
    if (key !== 'occurrences' && key !== 'last_seen' && key !== 'updated_at' && next[key] !== previous[key]) return false;
  }
  return true;
}

/**
 * The team store's repeat counts: repeats folded here and not yet committed (less those answered
 * 503), per incident, and how a total the database holds becomes memory's count. Relays fold
 * repeats of the same fault side by side: each sends what it added (an increment in SQL), never its
 * own total, so none is lost; memory shows the database's total plus these.
 *
 * `addedInFlight`: this relay's repeats of an incident in the batch being committed. A total read
 * from the database (or carried by another relay's notice) while that commit runs may or may not
 * hold them yet: only the commit's answer says, so the larger total seen meanwhile is kept for it.
 */
export function createRepeatCounts(addedInFlight: (incidentId: string) => number) {
  const added = new Map<string, number>();
  const seenInFlight = new Map<string, number>();
  /** Memory's count given a total the database holds now; the smaller reading while a commit is in flight. */
  const countFrom = (id: string, total: number): number => {
    const inFlight = addedInFlight(id);
    if (inFlight === 0) return Math.max(1, total + (added.get(id) ?? 0));
    seenInFlight.set(id, Math.max(seenInFlight.get(id) ?? 0, total));
    return Math.max(1, total + (added.get(id) ?? 0) - inFlight);
  };
  const add = (id: string, n: number) => {
    const next = (added.get(id) ?? 0) + n;
    if (next !== 0) added.set(id, next);
    else added.delete(id);
  };
  return {
    /** Read by the journal when it takes a batch. */
    added: added as ReadonlyMap<string, number>,
    add,
    /** What was counted here for an incident, now forgotten (dropped, or moved to its survivor). */
    take(id: string): number {
      const n = added.get(id) ?? 0;
      added.delete(id);
      seenInFlight.delete(id);
      return n;
    },
    /** A batch's repeats are in the database now. */
    committed(batchAdded: ReadonlyMap<string, number>) {
      for (const [id, n] of batchAdded) add(id, -n);
    },
    /** Memory's count after this relay's own commit left `total` in the database. */
    settled(id: string, total: number): number {
      const count = Math.max(1, Math.max(total, seenInFlight.get(id) ?? 0) + (added.get(id) ?? 0));
      seenInFlight.delete(id);
      return count;
    },
    countFrom,
    /** Another relay's notice of the counts its commit left (ChangeNotice's `c`): memory takes them without a read. */
    noticed(index: Map<string, Incident>, notice: Readonly<Record<string, unknown>>): RemoteChange[] {
      const changes: RemoteChange[] = [];
      for (const [id, value] of Object.entries(notice)) {
        const [total, lastSeen] = Array.isArray(value) ? (value as unknown[]) : [];
        const previous = index.get(id);
        if (!previous || typeof total !== 'number' || typeof lastSeen !== 'string') continue;
        // A read-back may have brought a newer total already: never backwards.
        const occurrences = Math.max(previous.occurrences, countFrom(id, total));
        const last_seen = lastSeen > previous.last_seen ? lastSeen : previous.last_seen;
        if (occurrences === previous.occurrences && last_seen === previous.last_seen) continue;
        const incident = { ...previous, occurrences, last_seen };
        index.set(id, incident);
        changes.push({ incident, previous, entries: [] });
      }
      return changes;
    },
  };
}
export type RepeatCounts = ReturnType<typeof createRepeatCounts>;
