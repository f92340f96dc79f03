import { existsSync, renameSync, rmSync } from 'node:fs';
import type { Incident } from './model';
import { createAppendFile } from './append-file';
import type { DiskHealth } from './disk-health';
import type { IndexFiles } from './index-files';
import { newBatch, type Batch } from './repeats-batch';
import type { HeaderLine, LazyLine, RecordLine } from './store-replay';

export interface RepeatsLogOptions {
  logPath: string;
  /** What the log's records are sealed with, said by the first line of a log begun afresh. */
  stamp: string;
  files: IndexFiles;
  /** How many incidents the index holds: the files are rewritten once the log is about as long. */
  incidents: () => number;
  health: DiskHealth;
  /** A compaction went through. */
  onCompacted: () => void;
  /** The log is compacted into the index once it is this long and as long as the index was. */
  compactAtBytes?: number;
}

/**
 * Every write answered for (a 202, a delivery, an outcome) must survive kill -9 without costing
 * a rewrite of the index: it is appended to the log (the page cache, synchronously, which
 * kill -9 does not lose). The index files are rewritten only when the log has grown as long as
 * they are (so the cost per write does not grow with the number of incidents), in chunks off
 * the alert's path: the log is first set aside as `.old`, every later write goes to a new log,
 * and `.old` is removed once both files hold everything it had. A start replays `.old`, then
 * the log, over the files, in the order written.
 */
export function createRepeatsLog(opts: RepeatsLogOptions) {
  const { logPath, stamp, files, health } = opts;
  const oldLogPath = `${logPath}.old`;
  const log = createAppendFile(logPath);
  let logBytes = 0;
  /** Learnt at each compaction: what the files take per incident, to know when the log has grown as long. */
  let bytesPerIncident = 1_000;
  const compactAt = opts.compactAtBytes ?? 1024 * 1024;

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
    // A log begun afresh says first which record format its lines are in (src/core/incidents/store-replay.ts).
    const text = logBytes === 0 ? `${JSON.stringify({ stamp } satisfies HeaderLine)}\n${body}` : body;
    try {
      log.append(text);
    } catch (error) {
      const refused = health.unavailable(error);
      b?.settle(refused);
      throw refused;
    }
    logBytes += Buffer.byteLength(text);
    b?.settle();
    if (logBytes >= Math.max(compactAt, opts.incidents() * bytesPerIncident)) compactSoon();
  };

  let compacting: Promise<void> | undefined;
  const compactSoon = () => {
    if (compacting) return;
    compacting = compact()
      .then(() => opts.onCompacted())
      .catch((error: unknown) => health.note(error))
      .finally(() => (compacting = undefined));
  };
  async function compact() {
    // An `.old` left by a compaction that failed is still to be folded in: it stays until one succeeds.
    if (!existsSync(oldLogPath)) {
      log.close();
      if (existsSync(logPath)) renameSync(logPath, oldLogPath);
      logBytes = 0;
    }
    const { bytes, incidents } = await files.write(bytesPerIncident);
    rmSync(oldLogPath, { force: true });
    if (opts.incidents() > 0) bytesPerIncident = Math.max(200, bytes / (incidents || 1));
  }

  return {
    write(incident: Incident, lazy: boolean) {
      if (lazy) {
        batch ??= newBatch(() => writeBatch());
        batch.lines.push(`${JSON.stringify({ i: incident.incident_id, n: incident.occurrences, s: incident.last_seen, u: incident.updated_at, p: incident.progress } satisfies LazyLine)}\n`);
        return;
      }
      // In the order written: a replay must end at this record, not at a repeat before it.
      writeBatch(`${JSON.stringify({ f: incident } satisfies RecordLine)}\n`);
    },
    /** Every write is durable when it returns, except lazy ones: those when this resolves. */
    flush: () => batch?.done ?? Promise.resolve(),
    compactSoon,
    /** Resolves once a compaction under way has ended. */
    settled: async () => compacting,
    /** Start and stop: the files take everything, and the logs go. */
    persistAll() {
      writeBatch();
      files.persist();
      log.close();
      for (const p of [oldLogPath, logPath]) rmSync(p, { force: true });
      logBytes = 0;
    },
  };
}
export type RepeatsLog = ReturnType<typeof createRepeatsLog>;
