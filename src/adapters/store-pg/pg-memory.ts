import type pg from 'pg';
import type { Logger } from 'pino';
import { isTerminal, type Incident, type TimelineEntry } from '../../core/incidents/model';
import type { RepeatCounts } from './repeat-counts';
import { loadIndex, readEntry, readRow, readTimelines } from './repository';

export interface HeldTimeline {
  entries: TimelineEntry[];
  /** Sequence numbers of entries other relays wrote, so a refresh adds each once. */
  remote: Set<string>;
}

export interface PgMemoryOptions {
  retention: number;
  /** How many finished incidents keep their timelines in memory. */
  keepRecent: number;
  counts: RepeatCounts;
  /** Memory let go of an incident the database holds or was asked to hold: its queued writes go. */
  forget(incidentId: string): void;
  /** A finished incident left the index past retention: the database removes it too. */
  evicted(incidentId: string): void;
}

/**
 * What the PostgreSQL store holds in memory, so reads stay synchronous: the index (open incidents
 * and the newest `retention` finished ones), who owns each, and the timelines of open incidents.
 */
export function createPgMemory(opts: PgMemoryOptions) {
  const { retention, keepRecent, counts } = opts;
  const index = new Map<string, Incident>();
  const owners = new Map<string, string>();
  /** Incidents the database holds (written or read here): their puts are updates, the rest inserts. */
  const persisted = new Set<string>();
  const timelines = new Map<string, HeldTimeline>();
  /** Finished incidents, oldest first: eviction takes from the front. */
  const finished: string[] = [];
  const recentFinished: string[] = [];
  /**
   * Ids memory let go of that the database holds or was asked to hold (folded away, or found
   * taken by another incident): a new incident never takes one again, whatever the clock says.
   */
  const retired = new Set<string>();

  const holdTimeline = (id: string) => {
    let held = timelines.get(id);
    if (!held) timelines.set(id, (held = { entries: [], remote: new Set() }));
    return held;
  };
  const forgetHere = (id: string) => {
    index.delete(id);
    owners.delete(id);
    persisted.delete(id);
    counts.take(id);
    timelines.delete(id);
  };
  function evict() {
    while (finished.length > retention) {
      const id = finished.shift() as string;
      const incident = index.get(id);
      if (!incident || !isTerminal(incident.state)) continue;
      forgetHere(id);
      opts.evicted(id);
    }
  }

  return {
    index,
    owners,
    persisted,
    timelines,
    retired,
    holdTimeline,
    finishedNow(id: string) {
      finished.push(id);
      recentFinished.push(id);
      // Timelines of finished incidents leave memory, the newest few excepted; loadTimeline reads them.
      while (recentFinished.length > keepRecent) {
        const old = recentFinished.shift() as string;
        if (isTerminal(index.get(old)?.state ?? 'resolved')) timelines.delete(old);
      }
      evict();
    },
    dropped(id: string) {
      retired.add(id);
      if (retired.size > 10_000) retired.delete(retired.values().next().value as string);
      forgetHere(id);
      opts.forget(id);
    },
    /** At start: the index as the database holds it, and the open incidents' timelines. */
    async load(pool: pg.Pool, me: string, logger: Logger) {
      for (const row of await loadIndex(pool, retention)) {
        const incident = readRow(row);
        if (!incident) {
          logger.error({ incident_id: row.incident_id }, 'stored incident unreadable, kept out of the index');
          continue;
        }
        index.set(incident.incident_id, incident);
        owners.set(incident.incident_id, row.owner);
        persisted.add(incident.incident_id);
      }
      finished.push(...[...index.values()].filter((i) => isTerminal(i.state)).sort((a, b) => a.updated_at.localeCompare(b.updated_at)).map((i) => i.incident_id));
      const openIds = [...index.values()].filter((i) => !isTerminal(i.state)).map((i) => i.incident_id);
      for (const id of openIds) timelines.set(id, { entries: [], remote: new Set() });
      for (const r of await readTimelines(pool, openIds)) {
        const entry = readEntry(r.entry);
        const held = timelines.get(r.incident_id);
        if (!entry || !held) continue;
        held.entries.push(entry);
        if (r.relay_id !== me) held.remote.add(r.seq);
      }
    },
  };
}
export type PgMemory = ReturnType<typeof createPgMemory>;
