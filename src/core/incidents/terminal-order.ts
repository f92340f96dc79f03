import { isTerminal, type Incident } from './model';

/** `updated_at`, then id: a key whose plain string order is the order retention evicts in. */
const keyOf = (i: Pick<Incident, 'updated_at' | 'incident_id'>) => `${i.updated_at}\u0000${i.incident_id}`;

/**
 * The finished incidents, oldest first, kept sorted as they change: retention takes the oldest
 * without sorting the whole index on every write that ends an incident. A write is nearly always
 * the newest, so it lands at the end; a search finds the rest.
 */
export function createTerminalOrder() {
  const keys: string[] = [];
  /** The first position whose key is not below `key`. */
  const lowerBound = (key: string) => {
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((keys[mid] as string) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const add = (i: Incident) => {
    const key = keyOf(i);
    if (keys.length === 0 || (keys[keys.length - 1] as string) < key) keys.push(key);
    else {
      const at = lowerBound(key);
      if (keys[at] !== key) keys.splice(at, 0, key);
    }
  };
  const remove = (i: Incident) => {
    const key = keyOf(i);
    const at = lowerBound(key);
    if (keys[at] === key) keys.splice(at, 1);
  };
  return {
    /** Every finished incident of `all`, sorted once (a start). */
    fill(all: Iterable<Incident>) {
      keys.length = 0;
      for (const i of all) if (isTerminal(i.state)) keys.push(keyOf(i));
      keys.sort();
    },
    /** `next` replaced `previous` (either may be absent or open). */
    change(previous: Incident | undefined, next: Incident | undefined) {
      if (previous && isTerminal(previous.state)) remove(previous);
      if (next && isTerminal(next.state)) add(next);
    },
    get size() {
      return keys.length;
    },
    /** Takes the oldest finished incident's id out of the order. */
    shiftOldest(): string | undefined {
      const key = keys.shift();
      return key === undefined ? undefined : key.slice(key.indexOf('\u0000') + 1);
    },
  };
}
