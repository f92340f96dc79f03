import type pg from 'pg';
import type { Logger } from 'pino';
import { jitteredBackoff } from '../backoff';
import { incidentSchema, isTerminal, timelineEntrySchema, type Incident, type TimelineEntry } from '../incidents/model';
import { newestFirst, StoreUnavailableError, type IncidentStore, type StoreHealth } from '../incidents/store';
import { databaseErrorMessage } from './database';
import { writeBatch } from './write-batch';


/** A change another relay made, as this relay's memory now holds it. */
export interface RemoteChange {
  incident: Incident;
  previous: Incident | undefined;
  /** Timeline entries written by other relays that this relay had not seen. */
  entries: TimelineEntry[];
  /** This relay ran the incident and another has taken it over (this one was thought dead). */
  lostOwnership?: boolean;
}

export interface SharedIncidentStore extends IncidentStore {
  readonly relayId: string;
  readonly pool: pg.Pool;
  /** The relay that runs this incident (alone writes its record), as last seen. */
  ownerOf(incidentId: string): string | undefined;
  /** Reads incidents other relays changed into memory; returns what changed, for the bus. */
  refresh(incidentIds: readonly string[]): Promise<RemoteChange[]>;
  /** Another relay's incident is now this relay's: memory follows the database. */
  adopted(incident: Incident): void;
  /**
   * Who reads back incidents this relay wrote without owning them (its memory was a step behind):
   * the team coordinator, which also tells the bus. Without one they are read back silently.
   */
  onStale(handler: (incidentIds: string[]) => void): void;
}

export interface PgStoreOptions {
  pool: pg.Pool;
  relayId: string;
  retention: number;
  logger: Logger;
  /** How long a lazy write (a duplicate) may wait to share a commit with others. */
  lazyFlushMs?: number;
  /** Finished incidents whose timelines stay in memory for the synchronous readers. */
  recentTimelines?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}

interface Row {
  doc: unknown;
  occurrences: number;
  last_seen: string;
  owner: string;
}

const readRow = (row: Row): Incident | undefined => {
  const parsed = incidentSchema.safeParse({ ...(row.doc as object), occurrences: row.occurrences, last_seen: row.last_seen });
  return parsed.success ? parsed.data : undefined;
};

interface HeldTimeline {
  entries: TimelineEntry[];
  /** Sequence numbers of entries other relays wrote, so a refresh adds each once. */
  remote: Set<string>;
}

/**
 * The incident store on PostgreSQL. Memory holds the index (open incidents and the newest
 * `retention` finished ones) and the timelines of open incidents, so reads stay synchronous;
 * writes apply to memory at once and are committed behind, in order, one transaction per batch.
 * `flush()` is the durability point: the intake answers 202 only after it. A batch that fails
 * stays queued and is retried with backoff until the database is back; `health()` says so.
 */
export async function createPgStore(opts: PgStoreOptions): Promise<SharedIncidentStore> {
  const { pool, relayId: me, retention, logger } = opts;
  const keepRecent = opts.recentTimelines ?? 200;
  const retryDelay = jitteredBackoff({ baseMs: opts.retryBaseMs ?? 250, maxMs: opts.retryMaxMs ?? 5_000 });

  const index = new Map<string, Incident>();
  const owners = new Map<string, string>();
  /** Incidents the database holds (written or read here): their puts are updates, the rest inserts. */
  const persisted = new Set<string>();
  /**
   * Repeats folded here and not yet committed. Relays fold repeats of the same fault side by side:
   * each sends what it added (an increment in SQL), never its own total, so none is lost; memory
   * shows the database's total plus these.
   */
  const added = new Map<string, number>();
  const timelines = new Map<string, HeldTimeline>();
  /** Finished incidents, oldest first: eviction takes from the front. */
  const finished: string[] = [];
  const recentFinished: string[] = [];

  // Retention, as the files keep it: finished incidents beyond the newest `retention` go, with their timelines.
  await pool.query(
    `WITH old AS (
       DELETE FROM incidents WHERE incident_id IN (SELECT incident_id FROM incidents WHERE terminal ORDER BY updated_at DESC OFFSET $1)
       RETURNING incident_id)
     DELETE FROM timeline WHERE incident_id IN (SELECT incident_id FROM old)`,
    [retention],
  );
  const { rows } = await pool.query<Row & { incident_id: string }>(
    `(SELECT incident_id, doc, occurrences, last_seen, owner FROM incidents WHERE NOT terminal)
     UNION ALL
     (SELECT incident_id, doc, occurrences, last_seen, owner FROM incidents WHERE terminal ORDER BY updated_at DESC LIMIT $1)`,
    [retention],
  );
  for (const row of rows) {
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
  if (openIds.length) {
    const t = await pool.query<{ incident_id: string; seq: string; relay_id: string; entry: unknown }>(
      'SELECT incident_id, seq, relay_id, entry FROM timeline WHERE incident_id = ANY($1) ORDER BY seq',
      [openIds],
    );
    for (const id of openIds) timelines.set(id, { entries: [], remote: new Set() });
    for (const r of t.rows) {
      const parsed = timelineEntrySchema.safeParse(r.entry);
      const held = timelines.get(r.incident_id);
      if (!parsed.success || !held) continue;
      held.entries.push(parsed.data);
      if (r.relay_id !== me) held.remote.add(r.seq);
    }
  }

  // The write-behind queue: coalesced per incident, appends in order.
  let puts = new Map<string, Incident>();
  let appends: { incident_id: string; entry: TimelineEntry }[] = [];
  let evictions = new Set<string>();
  let lazyTimer: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let failures = 0;
  let lastError: string | undefined;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  /** Writes of the batch being committed right now: still not durable. */
  let committing = 0;
  const pendingCount = () => puts.size + appends.length + evictions.size + committing;
  let staleHandler: ((incidentIds: string[]) => void) | undefined;

  async function commitPending(): Promise<void> {
    if (pendingCount() === 0) return;
    const batch = { puts, appends, evictions, added: new Map([...puts.keys()].flatMap((id) => (added.has(id) ? [[id, added.get(id) as number] as const] : []))) };
    puts = new Map();
    appends = [];
    evictions = new Set();
    committing = batch.puts.size + batch.appends.length + batch.evictions.size;
    const client = await pool.connect().catch((error: unknown) => {
      restore(batch);
      throw error;
    });
    let written: Awaited<ReturnType<typeof writeBatch>>;
    try {
      await client.query('BEGIN');
      written = await writeBatch(client, { ...batch, persisted }, me);
      await client.query('COMMIT');
      committing = 0;
      client.release();
      // Memory takes the database's count, plus repeats folded here since the batch was taken.
      for (const [id, n] of batch.added) {
        const left = (added.get(id) ?? 0) - n;
        if (left > 0) added.set(id, left);
        else added.delete(id);
      }
      for (const [id, total] of written.totals) {
        persisted.add(id);
        const now = index.get(id);
        const occurrences = total + (added.get(id) ?? 0);
        if (now && now.occurrences !== occurrences) index.set(id, { ...now, occurrences });
      }
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      // A broken connection must not go back to the pool.
      client.release(error instanceof Error ? error : true);
      restore(batch);
      throw error;
    }
    if (failures > 0) logger.info({ after_failures: failures }, 'database reachable again: queued writes committed');
    failures = 0;
    lastError = undefined;
    // Incidents written here without owning them: memory was a step behind; read them back.
    if (written.foreign.length) {
      if (staleHandler) staleHandler(written.foreign);
      else await refresh(written.foreign).catch(() => {});
    }
  }

  /** A failed batch goes back in front of anything written since, so order is kept. */
  function restore(batch: { puts: Map<string, Incident>; appends: typeof appends; evictions: Set<string>; added: Map<string, number> }) {
    committing = 0;
    for (const [id, incident] of puts) batch.puts.set(id, incident);
    puts = batch.puts;
    appends = [...batch.appends, ...appends];
    for (const id of evictions) batch.evictions.add(id);
    evictions = batch.evictions;
  }

  /** Commits everything queued so far, after any commit already running. */
  function commit(): Promise<void> {
    if (lazyTimer) clearTimeout(lazyTimer);
    lazyTimer = null;
    const run = chain.then(commitPending);
    chain = run.catch((error: unknown) => {
      failures += 1;
      const message = databaseErrorMessage(error);
      if (lastError !== message) logger.error({ err_message: message, pending_writes: pendingCount() }, `database write failed; retrying: ${message}`);
      lastError = message;
      if (!closed && !retryTimer) {
        retryTimer = setTimeout(() => {
          retryTimer = null;
          void commit().catch(() => {});
        }, retryDelay(failures - 1));
        retryTimer.unref?.();
      }
    });
    return run.catch((error: unknown) => {
      throw new StoreUnavailableError(`the incident database is not reachable: ${databaseErrorMessage(error)}`);
    });
  }

  /** One commit for everything written in the same turn (a state change is a put and a line or two). */
  let commitQueued = false;
  const soon = (lazy: boolean) => {
    if (lazy) {
      lazyTimer ??= setTimeout(() => void commit().catch(() => {}), opts.lazyFlushMs ?? 100);
      lazyTimer.unref?.();
      return;
    }
    if (commitQueued) return;
    commitQueued = true;
    queueMicrotask(() => {
      commitQueued = false;
      void commit().catch(() => {});
    });
  };

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
      added.delete(id);
      timelines.delete(id);
      evictions.add(id);
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

  /**
   * One read at a time, applied in order: two reads racing could land the older state last, and
   * memory would keep it until the incident changes again.
   */
  let reading: Promise<unknown> = Promise.resolve();
  function refresh(incidentIds: readonly string[]): Promise<RemoteChange[]> {
    const run = reading.then(() => readChanges(incidentIds));
    reading = run.catch(() => {});
    return run;
  }

  async function readChanges(incidentIds: readonly string[]): Promise<RemoteChange[]> {
    if (incidentIds.length === 0) return [];
    const ids = [...new Set(incidentIds)];
    const res = await pool.query<Row & { incident_id: string }>('SELECT incident_id, doc, occurrences, last_seen, owner FROM incidents WHERE incident_id = ANY($1)', [ids]);
    const t = await pool.query<{ incident_id: string; seq: string; entry: unknown }>(
      'SELECT incident_id, seq, entry FROM timeline WHERE incident_id = ANY($1) AND relay_id <> $2 ORDER BY seq',
      [ids, me],
    );
    const changes: RemoteChange[] = [];
    for (const row of res.rows) {
      const fromDb = readRow(row);
      if (!fromDb) continue;
      const previous = index.get(row.incident_id);
      const mine = row.owner === me && previous !== undefined;
      persisted.add(row.incident_id);
      // Repeats folded here and not yet committed stay counted on top of the database's total.
      const occurrences = fromDb.occurrences + (added.get(row.incident_id) ?? 0);
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
      for (const r of t.rows) {
        if (r.incident_id !== row.incident_id) continue;
        if (held?.remote.has(r.seq)) continue;
        const parsed = timelineEntrySchema.safeParse(r.entry);
        if (!parsed.success) continue;
        held?.remote.add(r.seq);
        held?.entries.push(parsed.data);
        entries.push(parsed.data);
      }
      const same = previous && JSON.stringify(previous) === JSON.stringify(incident);
      if (!same || entries.length || lostOwnership) changes.push({ incident, previous, entries, ...(lostOwnership ? { lostOwnership } : {}) });
    }
    return changes;
  }

  return {
    relayId: me,
    pool,
    writesBehind: true,
    get: (id) => index.get(id),
    list: () => [...index.values()].sort(newestFirst),
    ownerOf: (id) => owners.get(id),
    put(incident, putOpts) {
      const previous = index.get(incident.incident_id);
      // A new incident's first insert carries its whole count; what is added after the batch was taken goes as increments.
      if (previous && incident.occurrences > previous.occurrences) {
        added.set(incident.incident_id, (added.get(incident.incident_id) ?? 0) + incident.occurrences - previous.occurrences);
      }
      index.set(incident.incident_id, incident);
      if (!owners.has(incident.incident_id)) owners.set(incident.incident_id, me);
      puts.set(incident.incident_id, incident);
      if (!previous) holdTimeline(incident.incident_id);
      if (isTerminal(incident.state) && (!previous || !isTerminal(previous.state))) finishedNow(incident.incident_id);
      soon(Boolean(putOpts?.lazy));
    },
    appendTimeline(id, entry) {
      const incident = index.get(id);
      // A new incident's first entry comes before its record; a long-finished one's stays on disk only.
      if (!incident || !isTerminal(incident.state) || timelines.has(id)) holdTimeline(id).entries.push(entry);
      appends.push({ incident_id: id, entry });
      soon(false);
    },
    timeline: (id) => [...(timelines.get(id)?.entries ?? [])],
    async loadTimeline(id) {
      const held = timelines.get(id);
      if (held) return [...held.entries];
      const res = await pool.query<{ entry: unknown }>('SELECT entry FROM timeline WHERE incident_id = $1 ORDER BY seq', [id]).catch((error: unknown) => {
        throw new StoreUnavailableError(`the incident database is not reachable: ${databaseErrorMessage(error)}`);
      });
      return res.rows.map((r) => timelineEntrySchema.safeParse(r.entry)).flatMap((p) => (p.success ? [p.data] : []));
    },
    flush: () => commit(),
    health: (): StoreHealth => ({ backend: 'postgresql', ok: failures === 0, pending_writes: pendingCount(), ...(lastError ? { error: lastError } : {}) }),
    refresh,
    onStale(handler) {
      staleHandler = handler;
    },
    adopted(incident) {
      owners.set(incident.incident_id, me);
      index.set(incident.incident_id, incident);
    },
    async close() {
      await commit().catch((error: unknown) => logger.error({ err_message: (error as Error).message, pending_writes: pendingCount() }, 'writes not committed at close'));
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (lazyTimer) clearTimeout(lazyTimer);
    },
  };
}
