import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { incidentSchema, isTerminal, timelineEntrySchema, type Incident, type TimelineEntry } from './model';
import { newestFirst, type IncidentStore, type KeyValueBackend } from './store';
import { createTimelineAppenders } from './timeline-appenders';

const INDEX_KEY = 'incidents';

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

/** What a lazy write changes (src/relay/intake.ts, src/tools/run-progress.ts), as a repeats-log line holds it. */
interface LazyLine {
  i: string;
  n: number;
  s: string;
  u: string;
  p: Incident['progress'];
}
/** Any other write of an open incident (a delivery, a state change): the record itself. */
interface RecordLine {
  f: Incident;
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
   * each one would cost every alert a rewrite of all open incidents, made durable by `conf` with
   * an fsync (milliseconds each, twice on a new alert's path: its creation and its delivery):
   * each write is appended here instead (to the page cache, synchronously, which kill -9 does not
   * lose), and the index is rewritten at most every `lazyFlushMs`, after which the log is removed.
   * A crash between the two replays lines the index already has, in the order written, ending at
   * what the index holds: that changes nothing.
   */
  const repeatsPath = opts.repeatsLog ?? (timelineDir ? join(timelineDir, 'repeats.log') : undefined);
  const leftover = repeatsPath ? replayRepeats(repeatsPath) : false;
  let repeatsFd: number | undefined;
  /** Whether the log is on disk: written since the index was, or left by a stop before it. */
  let repeatsOnDisk = leftover;
  /**
   * Lazy lines (repeats) wait for `flush`, which the intake awaits before its 202: the repeats that
   * arrive in one turn of the event loop go to the log in one write, not a system call each.
   */
  let lazyLines: string[] = [];
  let lazyWritten: Promise<void> | undefined;
  const writeLazy = () => {
    if (!lazyLines.length) return;
    repeatsFd ??= openSync(repeatsPath as string, 'a', 0o600);
    writeSync(repeatsFd, lazyLines.join(''));
    lazyLines = [];
  };
  const logWrite = (incident: Incident, lazy: boolean) => {
    if (!repeatsPath) return;
    repeatsOnDisk = true;
    if (lazy) {
      lazyLines.push(`${JSON.stringify({ i: incident.incident_id, n: incident.occurrences, s: incident.last_seen, u: incident.updated_at, p: incident.progress } satisfies LazyLine)}\n`);
      // Written at the end of this turn whether or not anyone awaits it.
      flushLazy().catch((error: unknown) => logger.error({ err: error }, 'repeats log write failed'));
      return;
    }
    // In the order written: a replay must end at this record, not at a repeat before it.
    writeLazy();
    repeatsFd ??= openSync(repeatsPath, 'a', 0o600);
    writeSync(repeatsFd, `${JSON.stringify({ f: incident } satisfies RecordLine)}\n`);
  };
  const flushLazy = (): Promise<void> =>
    lazyLines.length === 0
      ? (lazyWritten ?? Promise.resolve())
      : (lazyWritten ??= new Promise<void>((resolve, reject) =>
          setImmediate(() => {
            lazyWritten = undefined;
            try {
              writeLazy();
              resolve();
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          }),
        ));
  /** The index holds every logged repeat now (lazy writes are to open incidents; a finished one's rewrites the archive at once). */
  const repeatsWritten = () => {
    lazyLines = [];
    if (repeatsFd !== undefined) closeSync(repeatsFd);
    repeatsFd = undefined;
    if (repeatsOnDisk) rmSync(repeatsPath as string, { force: true });
    repeatsOnDisk = false;
  };

  let flushTimer: NodeJS.Timeout | null = null;
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
  const persist = () => {
    persistOpen();
    persistArchive();
  };
  // Incidents that ended while stored among the open ones (an older layout) move to the archive;
  // repeats logged before a crash go into the index.
  if (leftover || (split && (Array.isArray(backend.get(INDEX_KEY)) ? (backend.get(INDEX_KEY) as Incident[]) : []).some((i) => isTerminal(i.state)))) persist();

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

  return {
    get: (id) => index.get(id),
    list: () => [...index.values()].sort(newestFirst),
    put(incident, putOpts) {
      const wasOpen = !isTerminal(index.get(incident.incident_id)?.state ?? 'queued');
      index.set(incident.incident_id, incident);
      if (isTerminal(incident.state)) {
        evict();
        persistArchive();
        // Leaving the open set rewrites it once; later updates of a finished incident touch only the archive.
        if (wasOpen || !split) persistOpen();
        return;
      }
      // Without a log only a lazy write may wait for the index.
      if (!putOpts?.lazy && !repeatsPath) return persistOpen();
      logWrite(incident, Boolean(putOpts?.lazy));
      // Once a second: the rewrite is synchronous and made durable with an fsync (milliseconds on a busy
      // disk), which holds up whatever alert is in flight; the log keeps everything meanwhile.
      flushTimer ??= setTimeout(persistOpen, opts.lazyFlushMs ?? 1_000);
      flushTimer.unref?.();
    },
    appendTimeline(id, entry) {
      if (!timelineDir) {
        let list = memoryTimelines.get(id);
        if (!list) memoryTimelines.set(id, (list = []));
        list.push(entry);
        return;
      }
      appenders.append(id, `${JSON.stringify(entry)}\n`);
    },
    timeline: readTimeline,
    loadTimeline: async (id) => readTimeline(id),
    // Every write above is durable when it returns, except lazy ones: those when this resolves.
    flush: flushLazy,
    // With a log, the intake awaits `flush` before a repeat's 202.
    writesBehind: Boolean(repeatsPath),
    health: () => ({ backend: timelineDir ? 'file' : 'memory', ok: true, pending_writes: 0 }),
    async close() {
      persist();
      appenders.closeAll();
    },
  };

  /** Folds the writes logged before the last stop into the index, in order; true when there was a log. */
  function replayRepeats(path: string): boolean {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return false;
    }
    for (const raw of text.split('\n')) {
      let line: LazyLine | RecordLine;
      try {
        line = JSON.parse(raw) as LazyLine | RecordLine;
      } catch {
        continue; // an empty or torn line (a crash mid-write): everything before it is intact
      }
      if ('f' in line) {
        const parsed = incidentSchema.safeParse(line.f);
        if (parsed.success) index.set(parsed.data.incident_id, parsed.data);
        continue;
      }
      const cur = index.get(line.i);
      if (!cur || typeof line.n !== 'number') continue;
      const newer = line.u > cur.updated_at;
      index.set(line.i, {
        ...cur,
        occurrences: Math.max(cur.occurrences, line.n),
        last_seen: line.s > cur.last_seen ? line.s : cur.last_seen,
        ...(newer ? { updated_at: line.u, progress: line.p ?? null } : {}),
      });
    }
    return true;
  }

  function readTimeline(id: string): TimelineEntry[] {
    if (!timelineDir) return [...(memoryTimelines.get(id) ?? [])];
    let text: string;
    try {
      text = readFileSync(timelinePath(id), 'utf8');
    } catch {
      return [];
    }
    const out: TimelineEntry[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      // A crash can leave a torn last line; everything before it is intact.
      try {
        const parsed = timelineEntrySchema.safeParse(JSON.parse(line));
        if (parsed.success) out.push(parsed.data);
      } catch {
        /* torn line */
      }
    }
    return out;
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
