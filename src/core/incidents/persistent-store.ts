import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { isTerminal, type Incident } from './model';
import { newestFirst, type IncidentStore, type KeyValueBackend } from './store';
import { createDiskHealth } from './disk-health';
import { createIndexFiles, INDEX_KEY } from './index-files';
import { createRepeatsLog } from './repeats-log';
import { replayRepeats } from './store-replay';
import { incidentStamp, loadIndex } from './store-load';
import { createStoredTimelines } from './stored-timelines';
import { createTerminalOrder } from './terminal-order';
export { createMemoryBackend } from './memory-backend';

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
  const index = new Map<string, Incident>();
  if (timelineDir) mkdirSync(timelineDir, { recursive: true, mode: 0o700 });

  loadIndex(archive !== backend ? [backend, archive] : [backend], INDEX_KEY, index, logger);
  /** The files' records are sealed with it: the next start takes them without a schema check each. */
  const stamp = incidentStamp();

  // Without a log (tests) every write rewrites the index; with one, see src/core/incidents/repeats-log.ts.
  const logPath = opts.repeatsLog ?? (timelineDir ? join(timelineDir, 'repeats.log') : undefined);
  const touched = new Set<string>();
  const leftover = logPath ? [replayRepeats(`${logPath}.old`, index, stamp, touched), replayRepeats(logPath, index, stamp, touched)].some(Boolean) : false;
  const files = createIndexFiles({ backend, archive, index, stamp }, touched);
  const terminal = createTerminalOrder();
  terminal.fill(index.values());

  const health = createDiskHealth(logger, retry);
  const timelines = createStoredTimelines(timelineDir, health.note);
  const onCompacted = () => {
    if (health.error === undefined || timelines.pending > 0) return;
    health.clear();
    logger.info('the data folder takes writes again');
  };
  const log = logPath ? createRepeatsLog({ logPath, stamp, files, incidents: () => index.size, health, onCompacted, ...(opts.compactAtBytes !== undefined ? { compactAtBytes: opts.compactAtBytes } : {}) }) : undefined;
  const persistAll = () => (log ? log.persistAll() : files.persist());

  function retry() {
    try {
      timelines.writePending();
    } catch (error) {
      return health.note(error);
    }
    if (log) log.compactSoon();
    else {
      try {
        files.persist();
        health.clear();
      } catch (error) {
        health.note(error);
      }
    }
  }

  /** The oldest finished incidents beyond `retention` go, with their timelines. */
  const evict = () => {
    while (terminal.size > retention) {
      const id = terminal.shiftOldest() as string;
      files.markArchiveStale();
      index.delete(id);
      timelines.remove(id);
    }
  };
  // Writes logged before a stop go into the files; on a full disk the relay starts all the same.
  if (leftover) {
    evict();
    try {
      persistAll();
    } catch (error) {
      health.note(error);
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
      if (isTerminal(incident.state) || isTerminal(before?.state ?? 'queued')) files.markArchiveStale();
      if (isTerminal(incident.state)) evict();
      try {
        if (log) log.write(incident, Boolean(putOpts?.lazy));
        else files.persistWrite(incident, !isTerminal(before?.state ?? 'queued'));
      } catch (error) {
        // Not recorded, so not held: the caller is told, and memory says what the disk says.
        if (before) index.set(id, before);
        else index.delete(id);
        terminal.change(incident, before);
        throw health.unavailable(error);
      }
    },
    appendTimeline: (id, entry) => timelines.append(id, entry),
    timeline: (id) => timelines.read(id),
    loadTimeline: async (id) => timelines.read(id),
    // Every write above is durable when it returns, except lazy ones: those when this resolves.
    flush: () => log?.flush() ?? Promise.resolve(),
    // With a log, the intake awaits `flush` before a repeat's 202.
    writesBehind: Boolean(logPath),
    health: () => ({ backend: timelineDir ? 'file' : 'memory', ok: health.error === undefined, pending_writes: timelines.pending, ...(health.error ? { error: health.error } : {}) }),
    async close() {
      health.stop();
      await log?.settled();
      try {
        timelines.writePending();
        persistAll();
      } catch (error) {
        // The logs stay: the next start folds them in.
        logger.error({ err: error }, 'could not write the incident index at stop; the next start reads the log');
      }
      timelines.closeAll();
    },
  };
}
