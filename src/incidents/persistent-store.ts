import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { isTerminal, timelineEntrySchema, type Incident, type TimelineEntry } from './model';
import { newestFirst, StoreUnavailableError, type IncidentStore, type KeyValueBackend } from './store';
import { createTimelineAppenders } from './timeline-appenders';
import { createAppendFile } from './append-file';
import { isDiskError } from './file-backend';
import { newBatch, type Batch } from './repeats-batch';
import { readTimelineFile, replayRepeats, type HeaderLine, type LazyLine, type RecordLine } from './store-replay';
import { incidentStamp, loadIndex } from './store-load';
import { createTerminalOrder } from './terminal-order';
export { createMemoryBackend } from './memory-backend';

const INDEX_KEY = 'incidents';
/** How often a store whose disk refused a write tries again. */
const RETRY_MS = 2_000;
export interface PersistentStoreOptions {
  /** Open incidents, as of the last compaction (or every write, without a log). */
  backend: KeyValueBackend;
  /** Finished incidents, up to `retention`. Without it everything shares `backend` (tests, throwaway relays). */
  archive?: KeyValueBackend;
  /** Append-only JSONL timelines; in memory when omitted (tests). */
  timelineDir?: string;
  /** How many terminal incidents to keep. Open incidents are never evicted. */
  retention: number;
  logger: Logger;
  /**
   * Where every write is made durable before it returns, a line each. Default `repeats.log` in
   * `timelineDir`; none without a `timelineDir` (tests): every write then rewrites the index.
   */
  repeatsLog?: string;
  /** The log is compacted into the index once it is this long and as long as the index was. */
  compactAtBytes?: number;
}

export function createPersistentStore(opts: PersistentStoreOptions): IncidentStore {
  const { backend, timelineDir, retention, logger } = opts;
  const archive = opts.archive ?? backend;
  const split = archive !== backend;
  const index = new Map<string, Incident>();
  const memoryTimelines = new Map<string, TimelineEntry[]>();
  if (timelineDir) mkdirSync(timelineDir, { recursive: true, mode: 0o700 });

  loadIndex(split ? [backend, archive] : [backend], INDEX_KEY, index, logger);
  /** The files' records are sealed with it: the next start takes them without a schema check each. */
  const stamp = incidentStamp();

  const timelinePath = (id: string) => join(timelineDir as string, `${id}.jsonl`);
  const appenders = createTimelineAppenders(timelinePath);

  /**
   * Every write answered for (a 202, a delivery, an outcome) must survive kill -9 without costing
   * a rewrite of the index: it is appended to the log (the page cache, synchronously, which
   * kill -9 does not lose). The index files are rewritten only when the log has grown as long as
   * they are (so the cost per write does not grow with the number of incidents), in chunks off
   * the alert's path: the log is first set aside as `.old`, every later write goes to a new log,
   * and `.old` is removed once both files hold everything it had. A start replays `.old`, then
   * the log, over the files, in the order written.
   */
  const logPath = opts.repeatsLog ?? (timelineDir ? join(timelineDir, 'repeats.log') : undefined);
  const oldLogPath = logPath && `${logPath}.old`;
  const touched = new Set<string>();
  const leftover = logPath ? [replayRepeats(oldLogPath!, index, stamp, touched), replayRepeats(logPath, index, stamp, touched)].some(Boolean) : false;
  /** The archive file may differ from the finished incidents held (or is not sealed yet): only then is it rewritten. */
  let archiveStale = !split || archive.sealOf?.(INDEX_KEY) !== stamp || [...touched].some((id) => isTerminal(index.get(id)?.state ?? 'queued'));
  const terminal = createTerminalOrder();
  terminal.fill(index.values());
  const log = logPath ? createAppendFile(logPath) : undefined;
  let logBytes = 0;
  /** Learnt at each compaction: what the files take per incident, to know when the log has grown as long. */
  let bytesPerIncident = 1_000;
  const compactAt = opts.compactAtBytes ?? 1024 * 1024;

  /** The disk error that refused the last write, until a write goes through again. */
  let diskError: string | undefined;
  let retryTimer: NodeJS.Timeout | null = null;
  const noteDiskError = (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    if (diskError === undefined) logger.error({ err: error }, 'the data folder refused a write: alerts and decisions are answered 503 until it takes writes again');
    diskError = message;
    retryTimer ??= setTimeout(retry, RETRY_MS);
    retryTimer.unref?.();
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
    const body = (b?.lines.join('') ?? '') + extra;
    if (!body) return;
    // A log begun afresh says first which record format its lines are in (src/incidents/store-replay.ts).
    const text = logBytes === 0 ? `${JSON.stringify({ stamp } satisfies HeaderLine)}\n${body}` : body;
    try {
      log!.append(text);
    } catch (error) {
      const refused = unavailable(error);
      b?.settle(refused);
      throw refused;
    }
    logBytes += Buffer.byteLength(text);
    b?.settle();
    if (logBytes >= Math.max(compactAt, index.size * bytesPerIncident)) compactSoon();
  };
  const logWrite = (incident: Incident, lazy: boolean) => {
    if (lazy) {
      batch ??= newBatch(() => writeBatch());
      batch.lines.push(`${JSON.stringify({ i: incident.incident_id, n: incident.occurrences, s: incident.last_seen, u: incident.updated_at, p: incident.progress } satisfies LazyLine)}\n`);
      return;
    }
    // In the order written: a replay must end at this record, not at a repeat before it.
    writeBatch(`${JSON.stringify({ f: incident } satisfies RecordLine)}\n`);
  };

  const lists = () => {
    const all = [...index.values()];
    return split ? { open: all.filter((i) => !isTerminal(i.state)), done: all.filter((i) => isTerminal(i.state)) } : { open: all, done: [] };
  };
  /** Without a log: an open incident's change rewrites the open file only, an ending both. */
  const persistWrite = (incident: Incident, wasOpen: boolean) => {
    const { open, done } = lists();
    if (isTerminal(incident.state) && split) archive.set(INDEX_KEY, done, stamp);
    if (!isTerminal(incident.state) || wasOpen || !split) backend.set(INDEX_KEY, open, stamp);
  };
  /** Both files at once, synchronously (start and stop). */
  const persist = () => {
    const { open, done } = lists();
    if (split && archiveStale) archive.set(INDEX_KEY, done, stamp);
    archiveStale = false;
    backend.set(INDEX_KEY, open, stamp);
  };
  /** Start and stop: the files take everything, and the logs go. */
  const persistAll = () => {
    writeBatch();
    persist();
    log?.close();
    if (logPath) for (const p of [oldLogPath!, logPath]) rmSync(p, { force: true });
    logBytes = 0;
  };

  let compacting: Promise<void> | undefined;
  const compactSoon = () => {
    if (compacting || !logPath) return;
    compacting = compact()
      .then(() => (diskError !== undefined && pendingLines.length === 0 ? ((diskError = undefined), logger.info('the data folder takes writes again')) : undefined))
      .catch((error: unknown) => noteDiskError(error))
      .finally(() => (compacting = undefined));
  };
  async function compact() {
    // An `.old` left by a compaction that failed is still to be folded in: it stays until one succeeds.
    if (!existsSync(oldLogPath!)) {
      log!.close();
      if (existsSync(logPath!)) renameSync(logPath!, oldLogPath!);
      logBytes = 0;
    }
    const { open, done } = lists();
    const write = async (b: KeyValueBackend, list: Incident[]) => (b.setList ? b.setList(INDEX_KEY, list, stamp) : (b.set(INDEX_KEY, list, stamp), list.length * bytesPerIncident));
    // Taken with the snapshot: an ending after it marks the archive again, and a failed write puts the mark back.
    const archiveToo = split && archiveStale;
    archiveStale = false;
    let bytes = 0;
    try {
      if (archiveToo) bytes += await write(archive, done);
    } catch (error) {
      archiveStale = true;
      throw error;
    }
    bytes += await write(backend, open);
    rmSync(oldLogPath!, { force: true });
    if (index.size > 0) bytesPerIncident = Math.max(200, bytes / (open.length + (archiveToo ? done.length : 0) || 1));
  }
  function retry() {
    retryTimer = null;
    try {
      writePendingLines();
    } catch (error) {
      return noteDiskError(error);
    }
    if (logPath) compactSoon();
    else {
      try {
        persist();
        diskError = undefined;
      } catch (error) {
        noteDiskError(error);
      }
    }
  }

  /** The oldest finished incidents beyond `retention` go, with their timelines. */
  const evict = () => {
    while (terminal.size > retention) {
      const id = terminal.shiftOldest() as string;
      archiveStale = true;
      index.delete(id);
      memoryTimelines.delete(id);
      if (!timelineDir) continue;
      appenders.close(id);
      rmSync(timelinePath(id), { force: true });
    }
  };
  // Writes logged before a stop go into the files; on a full disk the relay starts all the same.
  if (leftover) {
    evict();
    try {
      persistAll();
    } catch (error) {
      noteDiskError(error);
    }
  }

  return {
    get: (id) => index.get(id),
    list: () => [...index.values()].sort(newestFirst),
    values: () => index.values(),
    put(incident, putOpts) {
      const id = incident.incident_id;
      const before = index.get(id);
      index.set(id, incident);
      terminal.change(before, incident);
      if (isTerminal(incident.state) || isTerminal(before?.state ?? 'queued')) archiveStale = true;
      if (isTerminal(incident.state)) evict();
      try {
        if (logPath) logWrite(incident, Boolean(putOpts?.lazy));
        else persistWrite(incident, !isTerminal(before?.state ?? 'queued'));
      } catch (error) {
        // Not recorded, so not held: the caller is told, and memory says what the disk says.
        if (before) index.set(id, before);
        else index.delete(id);
        terminal.change(incident, before);
        throw unavailable(error);
      }
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
    writesBehind: Boolean(logPath),
    health: () => ({ backend: timelineDir ? 'file' : 'memory', ok: diskError === undefined, pending_writes: pendingLines.length, ...(diskError ? { error: diskError } : {}) }),
    async close() {
      if (retryTimer) clearTimeout(retryTimer);
      await compacting;
      try {
        writePendingLines();
        persistAll();
      } catch (error) {
        // The logs stay: the next start folds them in.
        logger.error({ err: error }, 'could not write the incident index at stop; the next start reads the log');
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
