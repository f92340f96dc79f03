import type { Logger } from 'pino';
import type { BackoffPolicy } from '../backoff';
import type { Clock } from '../clock';
import { changeOutcomeText, type ChangeRecord } from '../incidents/change';
import type { Incidents } from '../incidents/service';
import { quarantineKey, quarantineLine, type QuarantineBackend, type QuarantineEntry } from './entry';
import { createUnwritten, type UnwrittenQuarantines } from './unwritten';
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
  /** The relay's data folder when the backend is not that folder (a team's database): see createUnwritten. */
  folder?: QuarantineBackend;
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
  const { backend, clock, logger } = deps;
  const held = new Map<string, QuarantineEntry>();
  const clearedHandlers = new Set<(entry: QuarantineEntry) => void>();
  const said = quarantineSayings(deps);
  const keep = (entries: QuarantineEntry[]) => {
    const before = [...held.values()];
    held.clear();
    for (const e of entries) held.set(quarantineKey(e.device), e);
    for (const w of unwritten.entries()) if (!held.has(quarantineKey(w.entry.device))) held.set(quarantineKey(w.entry.device), w.entry);
    // Gone from the store without a clear here: a person cleared it on another relay. Only the listeners
    // hear it (what waits for the device); that relay said so on the incident and the channels.
    for (const e of before) if (!held.has(quarantineKey(e.device))) for (const fn of clearedHandlers) fn(e);
  };
  /** The device is no longer quarantined here: said on its incident, on the channels and to the listeners. */
  const lifted = (entry: QuarantineEntry, by: string, note = '') => {
    held.delete(quarantineKey(entry.device));
    said.cleared(entry, by, note);
    for (const fn of clearedHandlers) fn(entry);
  };
  const unwritten = createUnwritten({
    backend,
    ...(deps.folder ? { folder: deps.folder } : {}),
    clock,
    logger,
    ...(deps.retry ? { retry: deps.retry } : {}),
    written: (entry) => held.set(quarantineKey(entry.device), entry),
    overruled(entry, clear) {
      logger.warn({ device: entry.device, since: entry.since, cleared_at: clear.at, by: clear.by }, 'a quarantine written late was overruled: a person cleared the device after it was decided');
      lifted(entry, clear.by, ` at ${clear.at}, after this quarantine was decided (it reached the store late)`);
    },
  });

  const quarantine = quarantiner({ backend, clock, logger, held, unwritten, said });

  return {
    /** At start: quarantines the data folder kept are written to the store first, then the store is read. */
    async start(): Promise<void> {
      await unwritten.recover();
      keep(await backend.load());
    },
    /** Read again from the backend (a team relay: with every heartbeat, for another relay's quarantines). */
    async refresh(): Promise<void> {
      keep(await backend.load());
    },
    /** The device's quarantine now, read from the backend: the check every change passes. */
    async check(device: string): Promise<QuarantineEntry | undefined> {
      try {
        keep(await backend.load());
      } catch (error) {
        // Not readable now: a quarantine this relay holds still stands; anything else fails the check.
        const local = unwritten.get(device)?.entry;
        if (local) return local;
        throw error;
      }
      return held.get(quarantineKey(device));
    },
    /** As last read (cards, /health): never the gate for a change. */
    cached(device: string): QuarantineEntry | undefined {
      return held.get(quarantineKey(device));
    },
    list(): QuarantineEntry[] {
      return [...held.values()];
    },
    /** /health's degraded reasons: one per quarantined device, naming it. */
    reasons: () => healthReasons([...held.values()], unwritten),
    /** Quarantines held here that the backend has not taken yet, with the last error. */
    unwritten(): { device: string; error: string; tries: number }[] {
      return unwritten.entries().map((w) => ({ device: w.entry.device, error: w.error, tries: w.tries }));
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
    /**
     * A person clears the device: answers the quarantine that was lifted, or undefined when there was
     * none. The store first (a store that cannot be reached fails the clear, changing nothing); then
     * what waits here for the store goes too, as the clear is later than it.
     */
    async clear(device: string, by: string): Promise<QuarantineEntry | undefined> {
      const fromStore = await backend.remove(device, { at: clock.now().toISOString(), by });
      const waiting = await unwritten.cleared(device);
      const entry = fromStore ?? waiting;
      held.delete(quarantineKey(device));
      if (!entry) return undefined;
      lifted(entry, by);
      return entry;
    },
    stop(): void {
      unwritten.stop();
    },
    onCleared(fn: (entry: QuarantineEntry) => void): () => void {
      clearedHandlers.add(fn);
      return () => void clearedHandlers.delete(fn);
    },
  };
}

/** Quarantines a change's device: in the data folder first, then the store; here at once either way. */
function quarantiner(d: { backend: QuarantineBackend; clock: Clock; logger: Logger; held: Map<string, QuarantineEntry>; unwritten: UnwrittenQuarantines; said: ReturnType<typeof quarantineSayings> }) {
  const { backend, held, unwritten } = d;
  return async (incidentId: string, change: { device: string; change_id: string | null }, reason: string): Promise<void> => {
    const wanted = await unwritten.keep({ device: change.device, reason, since: d.clock.now().toISOString(), incident_id: incidentId, change_id: change.change_id });
    const key = quarantineKey(wanted.device);
    const before = held.get(key);
    let entry = before ?? wanted;
    // In force here from now on, while the store is asked.
    held.set(key, entry);
    try {
      const result = await backend.add(wanted);
      if (!result.clearedAfter) entry = result.entry;
      await unwritten.landed(wanted);
    } catch (error) {
      // Fail closed: quarantined here at once, and written as soon as the backend takes it.
      d.logger.error({ device: wanted.device, err: error }, 'the quarantine could not be written to the store; retrying, and this relay keeps the device quarantined meanwhile');
      unwritten.failed(wanted, error);
    }
    held.set(key, entry);
    if (!before && entry === wanted) d.said.quarantined(incidentId, entry, change.change_id);
  };
}

/** /health's degraded reasons: one per quarantined device, naming it, and saying when the store does not have it yet. */
function healthReasons(held: QuarantineEntry[], unwritten: UnwrittenQuarantines): string[] {
  return held.map((e) => {
    const w = unwritten.get(e.device);
    const store = w ? ` Not yet written to the store (${w.error}): retrying; this relay keeps it quarantined meanwhile.` : '';
    return `${quarantineLine(e)}. No change reaches it until an approver clears it (POST /devices/${e.device}/clear, the tray or /ui).${store}`;
  });
}

/** What a quarantine and its clear say on the incident's timeline, in the log and on every channel. */
function quarantineSayings(deps: Pick<QuarantineDeps, 'incidents' | 'logger' | 'tell'>) {
  const { incidents, logger } = deps;
  const recordOn = <D extends typeof entries.deviceQuarantined | typeof entries.deviceCleared>(incidentId: string | null, def: D, message: string, data: EntryData<D>) => {
    if (!incidentId || !incidents.get(incidentId)) return;
    try {
      incidents.record(incidentId, def, message, data);
    } catch (error) {
      logger.warn({ incident_id: incidentId, err: error }, `could not record ${def.name} on the incident`);
    }
  };
  return {
    quarantined(incidentId: string, entry: QuarantineEntry, changeId: string | null): void {
      recordOn(incidentId, entries.deviceQuarantined, `${quarantineLine(entry)}. No configuration reaches ${entry.device}, from any incident, until an approver clears it.`, { device: entry.device, reason: entry.reason });
      logger.error({ device: entry.device, incident_id: incidentId, change_id: changeId }, 'device quarantined: what its change left on it is not known');
      deps.tell?.(incidentId, `⛔ **${entry.device}** is quarantined: ${entry.reason}. No configuration reaches it until an approver clears it.`);
    },
    cleared(entry: QuarantineEntry, by: string, note = ''): void {
      recordOn(entry.incident_id, entries.deviceCleared, `${entry.device} cleared from quarantine by ${by}${note}`, { device: entry.device, by });
      logger.warn({ device: entry.device, by }, 'device cleared from quarantine');
      if (entry.incident_id) deps.tell?.(entry.incident_id, `✅ **${entry.device}** was cleared from quarantine by ${by}${note}.`);
    },
  };
}

export type Quarantine = ReturnType<typeof createQuarantine>;
