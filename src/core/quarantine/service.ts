import type { Logger } from 'pino';
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

  const keep = (entries: QuarantineEntry[]) => {
    held.clear();
    for (const e of entries) held.set(quarantineKey(e.device), e);
  };
  const recordOn = <D extends typeof entries.deviceQuarantined | typeof entries.deviceCleared>(incidentId: string | null, def: D, message: string, data: EntryData<D>) => {
    if (!incidentId || !incidents.get(incidentId)) return;
    try {
      incidents.record(incidentId, def, message, data);
    } catch (error) {
      logger.warn({ incident_id: incidentId, err: error }, `could not record ${def.name} on the incident`);
    }
  };

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
      keep(await backend.load());
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
    reasons(): string[] {
      return [...held.values()].map((e) => `${quarantineLine(e)}. No change reaches it until an approver clears it (POST /devices/${e.device}/clear, the tray or /ui).`);
    },
    /** A change ended: quarantines its device when it could not be put back. */
    async afterChange(incidentId: string, change: ChangeRecord): Promise<void> {
      const reason = quarantineReason(incidentId, change);
      if (!reason) return;
      const { entry, added } = await backend.add({ device: change.device, reason, since: clock.now().toISOString(), incident_id: incidentId, change_id: change.change_id });
      held.set(quarantineKey(entry.device), entry);
      if (!added) return;
      recordOn(incidentId, entries.deviceQuarantined, `${quarantineLine(entry)}. No configuration reaches ${entry.device}, from any incident, until an approver clears it.`, { device: entry.device, reason });
      logger.error({ device: entry.device, incident_id: incidentId, change_id: change.change_id }, 'device quarantined: its change could not be rolled back');
      deps.tell?.(incidentId, `⛔ **${entry.device}** is quarantined: ${reason}. No configuration reaches it until an approver clears it.`);
    },
    /** A person clears the device: answers the quarantine that was lifted, or undefined when there was none. */
    async clear(device: string, by: string): Promise<QuarantineEntry | undefined> {
      const lifted = await backend.remove(device);
      held.delete(quarantineKey(device));
      if (!lifted) return undefined;
      recordOn(lifted.incident_id, entries.deviceCleared, `${lifted.device} cleared from quarantine by ${by}`, { device: lifted.device, by });
      logger.warn({ device: lifted.device, by }, 'device cleared from quarantine');
      if (lifted.incident_id) deps.tell?.(lifted.incident_id, `✅ **${lifted.device}** was cleared from quarantine by ${by}.`);
      for (const fn of clearedHandlers) fn(lifted);
      return lifted;
    },
    onCleared(fn: (entry: QuarantineEntry) => void): () => void {
      clearedHandlers.add(fn);
      return () => void clearedHandlers.delete(fn);
    },
  };
}

export type Quarantine = ReturnType<typeof createQuarantine>;
