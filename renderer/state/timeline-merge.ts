import type { TimelineEntry } from '../../src/core/incidents/model';

const keyOf = (e: TimelineEntry) => `${e.at}|${e.type}|${e.message}`;

/**
 * The fetched timeline plus live entries, each once, in time order. Live entries can arrive
 * before the fetch answers, and the fetch may already hold some of them.
 */
export function mergeTimeline(base: readonly TimelineEntry[], live: readonly TimelineEntry[]): TimelineEntry[] {
  const seen = new Set(base.map(keyOf));
  const extra = live.filter((e) => {
    const k = keyOf(e);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  if (extra.length === 0) return [...base];
  // Stable: entries of the same millisecond keep their arrival order.
  return [...base, ...extra].map((e, i) => ({ e, i })).sort((a, b) => (a.e.at === b.e.at ? a.i - b.i : a.e.at < b.e.at ? -1 : 1)).map((x) => x.e);
}
