import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { incidentSchema, isTerminal, timelineEntrySchema, type Incident, type TimelineEntry } from './model';
import { newestFirst, StoreUnavailableError, type IncidentStore, type KeyValueBackend } from './store';
import { createTimelineAppenders } from './timeline-appenders';
import { createAppendFile } from './append-file';
import { isDiskError } from './file-backend';
import { newBatch, type Batch } from './repeats-batch';
import { readTimelineFile, replayRepeats, type LazyLine, type RecordLine } from './store-replay';

const INDEX_KEY = 'incidents';
/** How often a store whose disk refused a write tries again. */
const RETRY_MS = 2_000;

export interface PersistentStoreOptions {
  /** Open incidents: rewritten on every state change, so kept to what is open. */
  backend: KeyValueBackend;
  /**
   * Finished incidents, up to `retention`: written once per incident when it ends. Without
   * it everything shares `backend` (tests, throwaway relays).
   */
  archive?: KeyValueBackend;
  /** Append-only JSONL timelines; in memory when omitted (tests). */
  timelineDir?: string;
  /** How many terminal incidents to keep. Open incidents are never evicted. */
  retention: number;
  logger: Logger;
  /** How long a write of an open incident may wait to be coalesced with others into the index. */
  lazyFlushMs?: number;
  /**
   * Where a write of an open incident is made durable before it returns: one line appended per
   * write (a repeat's few fields, or the whole record), folded into the index at start. Default
   * `repeats.log` in `timelineDir` (there only while writes wait for the index); none without a
   * `timelineDir` (tests), where lazy writes live in memory until coalesced and the rest rewrite
   * the index at once.
   */
  repeatsLog?: string;
}

export function createPersistentStore(opts: PersistentStoreOptions): IncidentStore {
  const { backend, timelineDir, retention, logger } = opts;
  const archive = opts.archive ?? backend;
  const split = archive !== backend;
  const index = new Map<string, Incident>();
  const memoryTimelines = new Map<string, TimelineEntry[]>();
  if (timelineDir) mkdirSync(timelineDir, { recursive: true, mode: 0o700 });

  const stored = [backend.get(INDEX_KEY), ...(split ? [archive.get(INDEX_KEY)] : [])].flatMap((v) => (Array.isArray(v) ? v : []));
  for (const raw of stored) {
    const parsed = incidentSchema.safeParse(raw);
    if (parsed.success) index.set(parsed.data.incident_id, parsed.data);
    else logger.error({ incident_id: (raw as { incident_id?: unknown })?.incident_id }, 'stored incident unreadable, kept out of the index');
  }

  const timelinePath = (id: string) => join(timelineDir as string, `${id}.jsonl`);
  const appenders = createTimelineAppenders(timelinePath);

  /**
   * A write answered for (a 202, a delivery) must survive kill -9, and rewriting the index for
   * each one would cost every alert a rewrite of all open incidents, made durable with an fsync
   * (milliseconds each, twice on a new alert's path: its creation and its delivery): each write is
   * appended here instead (to the page cache, synchronously, which kill -9 does not lose), and the
   * index is rewritten at most every `lazyFlushMs`, after which the log is removed. A crash
   * between the two replays lines the index already has, in the order written: that changes nothing.
   */
  const repeatsPath = opts.repeatsLog ?? (timelineDir ? join(timelineDir, 'repeats.log') : undefined);
  const leftover = repeatsPath ? replayRepeats(repeatsPath, index) : false;
  const repeats = repeatsPath ? createAppendFile(repeatsPath) : undefined;
  /** Whether the log is on disk: written since the index was, or left by a stop before it. */
  let repeatsOnDisk = leftover;

  /** The disk error that refused the last write, until a write goes through again. */
  let diskError: string | undefined;
  const noteDiskError = (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    if (diskError === undefined) logger.error({ err: error }, 'the data folder refused a write: alerts and decisions are answered 503 until it takes writes again');
    diskError = message;
    retryLater();
  };
  const wrote = () => {
    if (diskError === undefined) return;
    diskError = undefined;
    logger.info('the data folder takes writes again');
  };
  const unavailable = (error: unknown): Error => {
    if (!isDiskError(error)) return error instanceof Error ? error : new Error(String(error));
    noteDiskError(error);
    return new StoreUnavailableError(`The relay cannot write to its data folder (${error.code ?? 'EIO'}); nothing was recorded. Try again shortly.`);
  };

  /** Timeline lines the disk refused, in the order written: kept and written first once it takes writes. */
  const pendingLines: Array<[id: string, text: string]> = [];
  const writePendingLines = () => {
    while (pendingLines.length) {
      const [id, text] = pendingLines[0]!;
      appenders.append(id, text);
      pendingLines.shift();
    }
  };

  /**
   * Lazy lines (repeats) wait for `flush`, which the intake awaits before its 202: the repeats that
   * arrive in one turn of the event loop go to the log in one write, not a system call each.
   */
  let batch: Batch | undefined;
  /** Appends the waiting batch, then `extra`, in one write; its waiters learn whether it held. */
  const writeBatch = (extra = '') => {
    const b = batch;
    batch = undefined;
    const text = (b?.lines.join('') ?? '') + extra;
    if (!text) return;
    try {
      repeats!.append(text);
    } catch (error) {
      const refused = unavailable(error);
      b?.settle(refused);
      throw refused;
    }
    repeatsOnDisk = true;
    b?.settle();
  };
  const logWrite = (incident: Incident, lazy: boolean) => {
    if (lazy) {
      if (!batch) {
        batch = newBatch();
        // Written at the end of this turn whether or not anyone awaits it.
        setImmediate(() => {
          try {
            writeBatch();
          } catch {
            /* its waiters were told; the store's health says so */
          }
        });
      }
      batch.lines.push(`${JSON.stringify({ i: incident.incident_id, n: incident.occurrences, s: incident.last_seen, u: incident.updated_at, p: incident.progress } satisfies LazyLine)}\n`);
      return;
    }
    // In the order written: a replay must end at this record, not at a repeat before it.
    writeBatch(`${JSON.stringify({ f: incident } satisfies RecordLine)}\n`);
  };
  /** The index holds every logged repeat now (lazy writes are to open incidents; a finished one's rewrites the archive at once). */
  const repeatsWritten = () => {
    repeats?.close();
    if (repeatsOnDisk) rmSync(repeatsPath as string, { force: true });
    repeatsOnDisk = false;
  };

  let flushTimer: NodeJS.Timeout | null = null;
  /** Rewrites the open index; the repeats log is removed only once the index holding its lines is written whole. */
  const persistOpen = () => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    const all = [...index.values()];
    backend.set(INDEX_KEY, split ? all.filter((i) => !isTerminal(i.state)) : all);
    repeatsWritten();
  };
  const persistArchive = () => {
    if (split) archive.set(INDEX_KEY, [...index.values()].filter((i) => isTerminal(i.state)));
  };
  /** The coalesced rewrite, and the retry after a refused write: a failure keeps the log and tries again. */
  const flushIndex = () => {
    flushTimer = null;
    try {
      writePendingLines();
      persistOpen();
      wrote();
    } catch (error) {
      noteDiskError(error);
    }
  };
  function retryLater() {
    flushTimer ??= setTimeout(flushIndex, RETRY_MS);
    flushTimer.unref?.();
  }
  // Incidents that ended while stored among the open ones (an older layout) move to the archive;
  // repeats logged before a crash go into the index. On a full disk the relay starts all the same.
  if (leftover || (split && (Array.isArray(backend.get(INDEX_KEY)) ? (backend.get(INDEX_KEY) as Incident[]) : []).some((i) => isTerminal(i.state)))) {
    try {
      persistArchive();
      persistOpen();
    } catch (error) {
      noteDiskError(error);
    }
  }

  const evict = () => {
    const terminal = [...index.values()].filter((i) => isTerminal(i.state));
    if (terminal.length <= retention) return;
    terminal.sort((a, b) => a.updated_at.localeCompare(b.updated_at));
    for (const old of terminal.slice(0, terminal.length - retention)) {
      index.delete(old.incident_id);
      memoryTimelines.delete(old.incident_id);
      if (!timelineDir) continue;
      appenders.close(old.incident_id);
      rmSync(timelinePath(old.incident_id), { force: true });
    }
  };

  /** A finished incident: durable once the archive holds it; the open index follows, or its retry does. */
  const putTerminal = (wasOpen: boolean) => {
    evict();
    if (!split) return persistOpen();
    persistArchive();
    if (!wasOpen) return;
    try {
      persistOpen();
    } catch (error) {
      noteDiskError(error);
    }
  };

  return {
    get: (id) => index.get(id),
    list: () => [...index.values()].sort(newestFirst),
    put(incident, putOpts) {
      const id = incident.incident_id;
      const before = index.get(id);
      const wasOpen = !isTerminal(before?.state ?? 'queued');
      index.set(id, incident);
      try {
        if (isTerminal(incident.state)) putTerminal(wasOpen);
        // Without a log only a lazy write may wait for the index.
        else if (!putOpts?.lazy && !repeatsPath) persistOpen();
        else logWrite(incident, Boolean(putOpts?.lazy));
      } catch (error) {
        // Not recorded, so not held: the caller is told, and memory says what the disk says.
        if (before) index.set(id, before);
        else index.delete(id);
        throw unavailable(error);
      }
      if (isTerminal(incident.state) || !repeatsPath) return;
      // Once a second: the rewrite is synchronous and made durable with an fsync (milliseconds on a busy
      // disk), which holds up whatever alert is in flight; the log keeps everything meanwhile.
      flushTimer ??= setTimeout(flushIndex, opts.lazyFlushMs ?? 1_000);
      flushTimer.unref?.();
    },
    appendTimeline(id, entry) {
      if (!timelineDir) {
        let list = memoryTimelines.get(id);
        if (!list) memoryTimelines.set(id, (list = []));
        list.push(entry);
        return;
      }
      const text = `${JSON.stringify(entry)}\n`;
      if (pendingLines.length === 0) {
        try {
          return appenders.append(id, text);
        } catch (error) {
          noteDiskError(error);
        }
      }
      pendingLines.push([id, text]);
    },
    timeline: readTimeline,
    loadTimeline: async (id) => readTimeline(id),
    // Every write above is durable when it returns, except lazy ones: those when this resolves.
    flush: () => batch?.done ?? Promise.resolve(),
    // With a log, the intake awaits `flush` before a repeat's 202.
    writesBehind: Boolean(repeatsPath),
    health: () => ({ backend: timelineDir ? 'file' : 'memory', ok: diskError === undefined, pending_writes: pendingLines.length, ...(diskError ? { error: diskError } : {}) }),
    async close() {
      if (flushTimer) clearTimeout(flushTimer);
      try {
        writeBatch();
        writePendingLines();
        persistArchive();
        persistOpen();
      } catch (error) {
        // The repeats log stays: the next start folds it in.
        logger.error({ err: error }, 'could not write the incident index at stop; the next start reads the repeats log');
      }
      appenders.closeAll();
    },
  };

  function readTimeline(id: string): TimelineEntry[] {
    if (!timelineDir) return [...(memoryTimelines.get(id) ?? [])];
    const held = pendingLines.filter(([pid]) => pid === id).flatMap(([, text]) => {
      const parsed = timelineEntrySchema.safeParse(JSON.parse(text));
      return parsed.success ? [parsed.data] : [];
    });
    return [...readTimelineFile(timelinePath(id)), ...held];
  }
}

/** A Map behind the backend interface, for tests and throwaway relays. */
export function createMemoryBackend(): KeyValueBackend & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    get: (key) => structuredClone(data.get(key)),
    set: (key, value) => void data.set(key, structuredClone(value)),
  };
}
