import { relayTag } from '../../core/incidents/ids';
import { isTerminal, type Incident, type TimelineEntry } from '../../core/incidents/model';
import { newestFirst, StoreUnavailableError, type StoreHealth } from '../../core/incidents/store';
import { databaseErrorMessage } from './database';
import { coalescedReads } from './coalesced-reads';
import { countOnly, createRepeatCounts } from './repeat-counts';
import { createJournal } from './journal';
import type { SetAside } from './isolate';
import { escapedText } from '../../core/incidents/storable-text';
import { loadIndex, readEntry, readIncidents, readRow, readTimeline, readTimelines, takeRelayNumber } from './repository';
import type { Batch, Written } from './write-batch';
import { entries } from '../../core/events/timeline-entries';
import type { PgStoreOptions, RemoteChange, SharedIncidentStore } from './pg-store-types';

export type { PgStoreOptions, RemoteChange, SharedIncidentStore } from './pg-store-types';

interface HeldTimeline {
  entries: TimelineEntry[];
  /** Sequence numbers of entries other relays wrote, so a refresh adds each once. */
  remote: Set<string>;
}

/**
 * The incident store on PostgreSQL. Memory holds the index (open incidents and the newest
 * `retention` finished ones) and the timelines of open incidents, so reads stay synchronous;
 * writes apply to memory at once and are committed behind (journal.ts). `flush()` is the
 * durability point: the intake answers 202 only after it; `health()` says when it cannot be.
 */
export async function createPgStore(opts: PgStoreOptions): Promise<SharedIncidentStore> {
  const { pool, relayId: me, retention, logger } = opts;
  const keepRecent = opts.recentTimelines ?? 200;
  const idTag = relayTag(BigInt(await takeRelayNumber(pool)));

  const index = new Map<string, Incident>();
  const owners = new Map<string, string>();
  /** Incidents the database holds (written or read here): their puts are updates, the rest inserts. */
  const persisted = new Set<string>();
  /** Repeats counted here and not yet committed: memory shows the database's total plus these. */
  const counts = createRepeatCounts((id) => journal.addedInFlight(id));
  const timelines = new Map<string, HeldTimeline>();
  /** Incidents with a write queued that changes more than their count and last sighting. */
  const recordChanged = new Set<string>();
  /** Finished incidents, oldest first: eviction takes from the front. */
  const finished: string[] = [];
  const recentFinished: string[] = [];

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

  let staleHandler: ((incidentIds: string[]) => Promise<void>) | undefined;
  const journal = createJournal({ ...opts, persisted, added: counts.added, committed, setAside, countOnly: (id) => !recordChanged.has(id) });

  /**
   * A write the database refused for what it holds (the rest of its batch was committed): a new
   * incident it never stored is let go of (its alert was answered 503); a known one says so on
   * its timeline, and keeps its repeats queued.
   */
  function setAside(write: SetAside) {
    const id = write.incidentId;
    if (!id || !index.has(id)) return;
    if (write.insert) return dropped(id);
    const what = write.batch.puts.size ? 'its record' : write.batch.appends.length ? 'a line of its timeline' : 'its repeat count';
    const entry: TimelineEntry = {
      at: new Date().toISOString(),
      type: entries.storeWriteRefused.name,
      message: `The incident database refused to store ${what} (${escapedText(write.reason)}): that write was set aside, the relay's other writes were committed`,
    };
    holdTimeline(id).entries.push(entry);
    journal.append(id, entry);
    if (counts.added.has(id)) journal.bump(id);
  }

  /** Memory takes what the batch wrote: the database's counts, and its folds. */
  function committed(batch: Batch, written: Written): Promise<void> | undefined {
    // Repeats counted here since the batch was taken stay on top of the database's count.
    counts.committed(batch.added);
    for (const [id, total] of written.totals) {
      persisted.add(id);
      const now = index.get(id);
      // A total another relay's notice or a read brought meanwhile may be the later one.
      const occurrences = counts.settled(id, total);
      if (now && now.occurrences !== occurrences) index.set(id, { ...now, occurrences });
    }
    for (const fold of written.folds) foldedAway(fold.from.incident_id, fold.into);
    for (const id of written.collisions) dropped(id);
    if (written.missing.length) logger.warn({ incident_ids: written.missing }, 'updates of incidents the database no longer holds (removed by retention) were not written');
    // Read back, and told on the bus: incidents written here without owning them, and the survivors of folds.
    // Not another relay's incident this one only counted repeats of, knowing whose it is: nothing it wrote was refused.
    const stale = [...new Set([...written.foreign.filter((id) => recordChanged.has(id) || owners.get(id) === me), ...written.folds.map((f) => f.into)])];
    for (const id of batch.puts.keys()) if (!journal.queued(id)) recordChanged.delete(id);
    if (!stale.length) return undefined;
    const read = staleHandler ? staleHandler(stale) : refresh(stale).then(() => {});
    // A fold (rare) is waited for, so the relay's next answer already counts on the survivor; a
    // foreign write (every repeat folded by a relay that does not run the incident) is not.
    return written.folds.length ? read.catch(() => {}) : void read.catch(() => {});
  }

  /**
   * This relay's new incident met another relay's open one for the same fault (it was created
   * while this relay could not reach the database): it is dropped here, and what it counted since
   * its record was taken goes to the survivor, which memory reads back.
   */
  function foldedAway(id: string, into: string) {
    logger.warn({ incident_id: id, folded_into: into }, 'another relay had opened this fault while the database was out of reach: incident folded into its one');
    const left = counts.take(id);
    dropped(id);
    if (left !== 0) {
      counts.add(into, left);
      journal.bump(into);
    }
  }

  /**
   * Ids memory let go of that the database holds or was asked to hold (folded away, or found
   * taken by another incident): a new incident never takes one again, whatever the clock says.
   */
  const retired = new Set<string>();
  function dropped(id: string) {
    retired.add(id);
    if (retired.size > 10_000) retired.delete(retired.values().next().value as string);
    index.delete(id);
    owners.delete(id);
    persisted.delete(id);
    counts.take(id);
    timelines.delete(id);
    journal.forget(id);
  }

  const holdTimeline = (id: string) => {
    let held = timelines.get(id);
    if (!held) timelines.set(id, (held = { entries: [], remote: new Set() }));
    return held;
  };

  function evict() {
    while (finished.length > retention) {
      const id = finished.shift() as string;
      const incident = index.get(id);
      if (!incident || !isTerminal(incident.state)) continue;
      index.delete(id);
      owners.delete(id);
      persisted.delete(id);
      counts.take(id);
      timelines.delete(id);
      journal.evict(id);
    }
  }

  function finishedNow(id: string) {
    finished.push(id);
    recentFinished.push(id);
    // Timelines of finished incidents leave memory, the newest few excepted; loadTimeline reads them.
    while (recentFinished.length > keepRecent) {
      const old = recentFinished.shift() as string;
      if (isTerminal(index.get(old)?.state ?? 'resolved')) timelines.delete(old);
    }
    evict();
  }

  /** One read at a time, applied in order; requests made meanwhile share the next read. */
  const refresh = coalescedReads<RemoteChange>((ids) => readChanges(ids));

  async function readChanges(incidentIds: readonly string[]): Promise<RemoteChange[]> {
    if (incidentIds.length === 0) return [];
    const { rows, lines } = await readIncidents(pool, [...new Set(incidentIds)], me);
    const changes: RemoteChange[] = [];
    for (const row of rows) {
      const fromDb = readRow(row);
      if (!fromDb) continue;
      const previous = index.get(row.incident_id);
      const mine = row.owner === me && previous !== undefined;
      persisted.add(row.incident_id);
      // Repeats counted here and not yet committed stay counted on top of the database's total.
      const occurrences = counts.countFrom(row.incident_id, fromDb.occurrences);
      // This relay's own record is the truth for what it owns; repeats folded elsewhere only add to the count.
      const incident = mine
        ? { ...previous, occurrences, last_seen: previous.last_seen > fromDb.last_seen ? previous.last_seen : fromDb.last_seen }
        : { ...fromDb, occurrences };
      const lostOwnership = owners.get(row.incident_id) === me && row.owner !== me;
      index.set(row.incident_id, incident);
      owners.set(row.incident_id, row.owner);
      if (!previous && isTerminal(incident.state)) finishedNow(row.incident_id);
      else if (previous && !isTerminal(previous.state) && isTerminal(incident.state)) finishedNow(row.incident_id);
      const entries: TimelineEntry[] = [];
      const held = !isTerminal(incident.state) || timelines.has(row.incident_id) ? holdTimeline(row.incident_id) : undefined;
      for (const r of lines) {
        if (r.incident_id !== row.incident_id || held?.remote.has(r.seq)) continue;
        const entry = readEntry(r.entry);
        if (!entry) continue;
        held?.remote.add(r.seq);
        held?.entries.push(entry);
        entries.push(entry);
      }
      const same = previous && JSON.stringify(previous) === JSON.stringify(incident);
      if (!same || entries.length || lostOwnership) changes.push({ incident, previous, entries, ...(lostOwnership ? { lostOwnership } : {}) });
    }
    return changes;
  }

  return {
    relayId: me,
    idTag,
    pool,
    writesBehind: true,
    get: (id) => index.get(id),
    idTaken: (id) => retired.has(id),
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
      if (isTerminal(incident.state) && (!previous || !isTerminal(previous.state))) finishedNow(incident.incident_id);
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
