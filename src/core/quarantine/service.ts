import type { Logger } from 'pino';
import { jitteredBackoff, type BackoffPolicy } from '../backoff';
import type { Clock } from '../clock';
import { changeOutcomeText, type ChangeRecord } from '../incidents/change';
import type { Incidents } from '../incidents/service';
import { quarantineKey, quarantineLine, type QuarantineBackend, type QuarantineEntry } from './entry';
import type { EntryData } from '../events/define';
import { entries } from '../events/timeline-entries';

export interface QuarantineDeps {
  backend: QuarantineBackend;
  incidents: Incidents;
  clock: Clock;
  logger: Logger;
  /** A notice on every operator channel. */
  tell?(incidentId: string, markdown: string): void;
  /** Delay before each new try of a quarantine the backend has not taken yet. */
  retry?: BackoffPolicy;
}

/**
 * Why a finished change leaves its device quarantined, in the relay's words; undefined when it does
 * not. A rollback that failed, or a session lost while the change was provisional (a CLI device keeps
 * no confirmed commit of its own, so what it holds afterwards is not known for sure).
 */
export function quarantineReason(incidentId: string, change: ChangeRecord): string | undefined {
  if (change.state === 'rollback_failed') return `change ${change.change_id} of ${incidentId}: ${changeOutcomeText({ ...change, detail: null })}`;
  if (change.ended_by === 'session_lost') return `the session to the device was lost while change ${change.change_id} of ${incidentId} was provisional: its configuration is not known`;
  return undefined;
}

/**
 * The quarantined devices. Every check before a change reads the backend itself (on a team, the
 * database every relay writes), so a quarantine made on one relay holds on all of them at once; the
 * copy in memory serves /health, the tray, /ui and the cards between reads.
 */
export function createQuarantine(deps: QuarantineDeps) {
  const { backend, incidents, clock, logger } = deps;
  const held = new Map<string, QuarantineEntry>();
  const clearedHandlers = new Set<(entry: QuarantineEntry) => void>();

  /** Quarantines the backend has not taken yet (the database down, the disk full): in force here all the same. */
  const unwritten = new Map<string, { entry: QuarantineEntry; error: string; tries: number }>();
  const backoff = deps.retry ?? jitteredBackoff({ baseMs: 500, maxMs: 5_000 });
  let retry: { cancel(): void } | undefined;
  let stopped = false;

  const keep = (entries: QuarantineEntry[]) => {
    held.clear();
    for (const e of entries) held.set(quarantineKey(e.device), e);
    for (const [key, w] of unwritten) if (!held.has(key)) held.set(key, w.entry);
  };

  /** Writes what is still unwritten, until it lands: a quarantine is never only logged. */
  async function writeUnwritten(): Promise<void> {
    retry = undefined;
    for (const [key, w] of [...unwritten]) {
      try {
        const { entry } = await backend.add(w.entry);
        if (unwritten.get(key) !== w) continue;
        unwritten.delete(key);
        held.set(key, entry);
        logger.warn({ device: entry.device, tries: w.tries }, 'quarantine written to the store after it had failed');
      } catch (error) {
        w.error = (error as Error).message;
        w.tries += 1;
      }
    }
    if (unwritten.size > 0 && !stopped) {
      const tries = Math.max(...[...unwritten.values()].map((w) => w.tries));
      retry = clock.setTimeout(() => void writeUnwritten(), backoff(tries));
    }
  }
  const recordOn = <D extends typeof entries.deviceQuarantined | typeof entries.deviceCleared>(incidentId: string | null, def: D, message: string, data: EntryData<D>) => {
    if (!incidentId || !incidents.get(incidentId)) return;
    try {
      incidents.record(incidentId, def, message, data);
    } catch (error) {
      logger.warn({ incident_id: incidentId, err: error }, `could not record ${def.name} on the incident`);
    }
  };

  /** Quarantines the change's device, in the store when it takes it, here at once either way. */
  async function quarantine(incidentId: string, change: { device: string; change_id: string | null }, reason: string): Promise<void> {
    const wanted: QuarantineEntry = { device: change.device, reason, since: clock.now().toISOString(), incident_id: incidentId, change_id: change.change_id };
    const key = quarantineKey(wanted.device);
    let result: { entry: QuarantineEntry; added: boolean };
    try {
      result = await backend.add(wanted);
    } catch (error) {
      // Fail closed: quarantined here at once, and written as soon as the backend takes it.
      const before = unwritten.get(key) ?? (held.get(key) ? undefined : { entry: wanted, error: (error as Error).message, tries: 1 });
      if (before && !unwritten.has(key)) unwritten.set(key, before);
      logger.error({ device: wanted.device, err: error }, 'the quarantine could not be written to the store; retrying, and this relay keeps the device quarantined meanwhile');
      if (!retry && !stopped) retry = clock.setTimeout(() => void writeUnwritten(), backoff(0));
      result = { entry: held.get(key) ?? wanted, added: before?.entry === wanted };
    }
    const { entry, added } = result;
    held.set(key, entry);
    if (!added) return;
    recordOn(incidentId, entries.deviceQuarantined, `${quarantineLine(entry)}. No configuration reaches ${entry.device}, from any incident, until an approver clears it.`, { device: entry.device, reason });
    logger.error({ device: entry.device, incident_id: incidentId, change_id: change.change_id }, 'device quarantined: what its change left on it is not known');
    deps.tell?.(incidentId, `⛔ **${entry.device}** is quarantined: ${reason}. No configuration reaches it until an approver clears it.`);
  }

  return {
    async start(): Promise<void> {
      keep(await backend.load());
    },
    /** Read again from the backend (a team relay: with every heartbeat, for another relay's quarantines). */
    async refresh(): Promise<void> {
      keep(await backend.load());
    },
    /** The device's quarantine now, read from the backend: the check every change passes. */
    async check(device: string): Promise<QuarantineEntry | undefined> {
      const key = quarantineKey(device);
      try {
        keep(await backend.load());
      } catch (error) {
        // Not readable now: a quarantine this relay holds still stands; anything else fails the check.
        const local = unwritten.get(key)?.entry;
        if (local) return local;
        throw error;
      }
      return held.get(key);
    },
    /** As last read (cards, /health): never the gate for a change. */
    cached(device: string): QuarantineEntry | undefined {
      return held.get(quarantineKey(device));
    },
    list(): QuarantineEntry[] {
      return [...held.values()];
    },
    /** /health's degraded reasons: one per quarantined device, naming it. */
    reasons(): string[] {
      return [...held.values()].map((e) => {
        const w = unwritten.get(quarantineKey(e.device));
        const store = w ? ` Not yet written to the store (${w.error}): retrying; this relay keeps it quarantined meanwhile.` : '';
        return `${quarantineLine(e)}. No change reaches it until an approver clears it (POST /devices/${e.device}/clear, the tray or /ui).${store}`;
      });
    },
    /** Quarantines held here that the backend has not taken yet, with the last error. */
    unwritten(): { device: string; error: string; tries: number }[] {
      return [...unwritten.values()].map((w) => ({ device: w.entry.device, error: w.error, tries: w.tries }));
    },
    /** A change ended: quarantines its device when it could not be put back. */
    async afterChange(incidentId: string, change: ChangeRecord): Promise<void> {
      const reason = quarantineReason(incidentId, change);
      if (reason) await quarantine(incidentId, change, reason);
    },
    /** A change that failed part-way on the device and was not read back as put back: what the device holds is not known. */
    async unsure(incidentId: string, device: string, why: string): Promise<void> {
      await quarantine(incidentId, { device, change_id: null }, `a change of ${incidentId} failed part-way on ${device} and the device was not read back as before (${why}): its configuration is not known`);
    },
    /** A change whose end the relay never learned (the device tool server silent past its deadline): what the device holds is not known. */
    async unlearned(incidentId: string, change: ChangeRecord, why: string): Promise<void> {
      await quarantine(incidentId, change, `the state of change ${change.change_id} of ${incidentId} was never learned (${why}): whether it was rolled back is not known`);
    },
    /** A person clears the device: answers the quarantine that was lifted, or undefined when there was none. */
    async clear(device: string, by: string): Promise<QuarantineEntry | undefined> {
      const local = unwritten.get(quarantineKey(device))?.entry;
      const lifted = (await backend.remove(device)) ?? local;
      unwritten.delete(quarantineKey(device));
      held.delete(quarantineKey(device));
      if (!lifted) return undefined;
      recordOn(lifted.incident_id, entries.deviceCleared, `${lifted.device} cleared from quarantine by ${by}`, { device: lifted.device, by });
      logger.warn({ device: lifted.device, by }, 'device cleared from quarantine');
      if (lifted.incident_id) deps.tell?.(lifted.incident_id, `✅ **${lifted.device}** was cleared from quarantine by ${by}.`);
      for (const fn of clearedHandlers) fn(lifted);
      return lifted;
    },
    stop(): void {
      stopped = true;
      retry?.cancel();
    },
    onCleared(fn: (entry: QuarantineEntry) => void): () => void {
      clearedHandlers.add(fn);
      return () => void clearedHandlers.delete(fn);
    },
  };
}

export type Quarantine = ReturnType<typeof createQuarantine>;
