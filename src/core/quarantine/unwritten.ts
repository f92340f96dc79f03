import type { Logger } from 'pino';
import { jitteredBackoff, type BackoffPolicy } from '../backoff';
import type { Clock } from '../clock';
import { errorText } from '../error-body';
import { quarantineKey, type QuarantineBackend, type QuarantineClear, type QuarantineEntry } from './entry';

interface Unwritten {
  entry: QuarantineEntry;
  error: string;
  tries: number;
}

export interface UnwrittenDeps {
  backend: QuarantineBackend;
  /**
   * The relay's data folder, for a store that is not that folder (a team's database): every
   * quarantine is written here first and stays until the store has it, so a relay killed meanwhile
   * still holds it at its next start and writes it then.
   */
  folder?: QuarantineBackend;
  clock: Clock;
  logger: Logger;
  retry?: BackoffPolicy;
  /** The store took it (or already held one for the device): the entry in force there. */
  written(entry: QuarantineEntry): void;
  /** A person cleared the device after this quarantine was decided, before the store could take it. */
  overruled(entry: QuarantineEntry, clear: QuarantineClear): void;
}

/**
 * Quarantines the store has not taken yet (the database away, the disk full): in force on this relay
 * all the same, kept in the data folder when there is one, and written to the store until it takes
 * them. A quarantine is never only logged.
 */
export function createUnwritten(deps: UnwrittenDeps) {
  const { backend, folder, clock, logger } = deps;
  const waiting = new Map<string, Unwritten>();
  const backoff = deps.retry ?? jitteredBackoff({ baseMs: 500, maxMs: 5_000 });
  let timer: { cancel(): void } | undefined;
  let stopped = false;

  const schedule = (tries: number) => {
    if (!timer && !stopped && waiting.size > 0) timer = clock.setTimeout(() => void writeAll(), backoff(tries));
  };

  /** The store has it (or a clear overruled it): out of the data folder, and no longer waiting. */
  async function settle(key: string, w: Unwritten): Promise<void> {
    if (waiting.get(key) === w) waiting.delete(key);
    try {
      await folder?.remove(w.entry.device);
    } catch (error) {
      // The store holds it, so nothing is lost: the next start writes it once more, which changes nothing.
      logger.warn({ device: w.entry.device, err: error }, 'a quarantine the store now holds could not be taken out of the data folder');
    }
  }

  /** One late write: decided earlier, so a person's later clear wins over it. */
  async function writeOne(key: string, w: Unwritten): Promise<void> {
    try {
      const result = await backend.add(w.entry, { late: true });
      if (waiting.get(key) !== w) return;
      await settle(key, w);
      if (result.clearedAfter) deps.overruled(w.entry, result.clearedAfter);
      else {
        logger.warn({ device: result.entry.device, tries: w.tries }, 'quarantine written to the store after it had failed');
        deps.written(result.entry);
      }
    } catch (error) {
      w.error = errorText(error);
      w.tries += 1;
    }
  }

  async function writeAll(): Promise<void> {
    timer = undefined;
    for (const [key, w] of [...waiting]) await writeOne(key, w);
    schedule(Math.max(0, ...[...waiting.values()].map((w) => w.tries)));
  }

  return {
    /**
     * Into the data folder before anything else; answers the quarantine in force there (an earlier
     * one not yet written wins). A folder that cannot take it is said loudly: the store is tried next.
     */
    async keep(wanted: QuarantineEntry): Promise<QuarantineEntry> {
      if (!folder) return wanted;
      try {
        const kept = await folder.add(wanted);
        return kept.clearedAfter ? wanted : kept.entry;
      } catch (error) {
        logger.error({ device: wanted.device, err: error }, 'the quarantine could not be written to the data folder: a restart before the store takes it loses it');
        return wanted;
      }
    },
    /** The store took it at once. */
    landed: (entry: QuarantineEntry) => settle(quarantineKey(entry.device), waiting.get(quarantineKey(entry.device)) ?? { entry, error: '', tries: 0 }),
    /** The store refused or was away: waits here, written again with backoff. */
    failed(entry: QuarantineEntry, error: unknown): void {
      const key = quarantineKey(entry.device);
      if (!waiting.has(key)) waiting.set(key, { entry, error: errorText(error), tries: 1 });
      schedule(0);
    },
    /** At start: what the data folder kept (the relay stopped before the store took it), written before anything else. */
    async recover(): Promise<void> {
      if (!folder) return;
      for (const entry of await folder.load()) waiting.set(quarantineKey(entry.device), { entry, error: 'kept in the data folder when the relay stopped', tries: 0 });
      if (waiting.size > 0) await writeAll();
    },
    /** A person cleared the device: what waits for it here goes too (the clear is later than it). */
    async cleared(device: string): Promise<QuarantineEntry | undefined> {
      const key = quarantineKey(device);
      const w = waiting.get(key);
      waiting.delete(key);
      const fromFolder = await folder?.remove(device);
      return w?.entry ?? fromFolder;
    },
    get: (device: string) => waiting.get(quarantineKey(device)),
    entries: () => [...waiting.values()],
    stop(): void {
      stopped = true;
      timer?.cancel();
    },
  };
}

export type UnwrittenQuarantines = ReturnType<typeof createUnwritten>;
