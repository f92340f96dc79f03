import { relayTag } from '../../core/incidents/ids';
import { isTerminal } from '../../core/incidents/model';
import { newestFirst, StoreUnavailableError, type StoreHealth } from '../../core/incidents/store';
import { databaseErrorMessage } from './database';
import { coalescedReads } from './coalesced-reads';
import { countOnly, createRepeatCounts } from './repeat-counts';
import { createJournal } from './journal';
import { createJournalOutcomes } from './journal-outcomes';
import { createPgMemory } from './pg-memory';
import { readRemoteChanges } from './remote-changes';
import { readTimeline, takeRelayNumber } from './repository';
import type { PgStoreOptions, RemoteChange, SharedIncidentStore } from './pg-store-types';

export type { PgStoreOptions, RemoteChange, SharedIncidentStore } from './pg-store-types';

/**
 * The incident store on PostgreSQL. Memory holds the index (open incidents and the newest
 * `retention` finished ones) and the timelines of open incidents, so reads stay synchronous;
 * writes apply to memory at once and are committed behind (journal.ts). `flush()` is the
 * durability point: the intake answers 202 only after it; `health()` says when it cannot be.
 */
export async function createPgStore(opts: PgStoreOptions): Promise<SharedIncidentStore> {
  const { pool, relayId: me, retention, logger } = opts;
  const idTag = relayTag(BigInt(await takeRelayNumber(pool)));

  /** Repeats counted here and not yet committed: memory shows the database's total plus these. */
  const counts = createRepeatCounts((id) => journal.addedInFlight(id));
  const memory = createPgMemory({ retention, keepRecent: opts.recentTimelines ?? 200, counts, forget: (id) => journal.forget(id), evicted: (id) => journal.evict(id) });
  const { index, owners, timelines, holdTimeline } = memory;
  await memory.load(pool, me, logger);
  /** Incidents with a write queued that changes more than their count and last sighting. */
  const recordChanged = new Set<string>();

  let staleHandler: ((incidentIds: string[]) => Promise<void>) | undefined;
  const outcomes = createJournalOutcomes({
    ...{ me, logger, memory, counts, recordChanged },
    journal: () => journal,
    readBack: (stale) => (staleHandler ? staleHandler(stale) : refresh(stale).then(() => {})),
  });
  const journal = createJournal({ ...opts, persisted: memory.persisted, added: counts.added, committed: outcomes.committed, setAside: outcomes.setAside, countOnly: (id) => !recordChanged.has(id) });

  /** One read at a time, applied in order; requests made meanwhile share the next read. */
  const refresh = coalescedReads<RemoteChange>((ids) => readRemoteChanges({ pool, me, memory, counts }, ids));

  return {
    relayId: me,
    idTag,
    pool,
    writesBehind: true,
    get: (id) => index.get(id),
    idTaken: (id) => memory.retired.has(id),
    list: () => [...index.values()].sort(newestFirst),
    values: () => index.values(),
    ownerOf: (id) => owners.get(id),
    put(incident, putOpts) {
      const previous = index.get(incident.incident_id);
      // A new incident's first insert carries its whole count; later changes go as increments (a
      // repeat answered 503 as a decrement: it counts nothing, and the sender's retry is counted).
      if (previous && incident.occurrences !== previous.occurrences) {
        counts.add(incident.incident_id, incident.occurrences - previous.occurrences);
      }
      if (!previous || !countOnly(previous, incident)) recordChanged.add(incident.incident_id);
      index.set(incident.incident_id, incident);
      if (!owners.has(incident.incident_id)) owners.set(incident.incident_id, me);
      if (!previous) holdTimeline(incident.incident_id);
      if (isTerminal(incident.state) && (!previous || !isTerminal(previous.state))) memory.finishedNow(incident.incident_id);
      journal.put(incident, Boolean(putOpts?.lazy));
    },
    appendTimeline(id, entry) {
      const incident = index.get(id);
      // A new incident's first entry comes before its record; a long-finished one's stays on disk only.
      if (!incident || !isTerminal(incident.state) || timelines.has(id)) holdTimeline(id).entries.push(entry);
      journal.append(id, entry);
    },
    timeline: (id) => [...(timelines.get(id)?.entries ?? [])],
    async loadTimeline(id) {
      const held = timelines.get(id);
      if (held) return [...held.entries];
      return readTimeline(pool, id).catch((error: unknown) => {
        throw new StoreUnavailableError(`the incident database is not reachable: ${databaseErrorMessage(error)}`);
      });
    },
    flush: () => journal.commit(),
    health: (): StoreHealth => {
      const lastError = journal.lastError();
      const refused = journal.refused();
      return {
        backend: 'postgresql',
        ok: journal.failures() === 0,
        pending_writes: journal.pendingCount(),
        ...(lastError ? { error: lastError } : {}),
        ...(refused.count ? { refused_writes: refused.count, last_refused: refused.last } : {}),
      };
    },
    refresh,
    onStale(handler) {
      staleHandler = handler;
    },
    countsChanged: (notice) => counts.noticed(index, notice),
    adopted(incident) {
      owners.set(incident.incident_id, me);
      index.set(incident.incident_id, incident);
    },
    close: () => journal.close(),
  };
}
