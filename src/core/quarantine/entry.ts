import { z } from 'zod';

/**
 * A device the relay keeps every configuration away from: a change on it could not be put back (or
 * its session was lost while the change was provisional), so what is on it is not known. Only a
 * person clears it.
 */
export const QuarantineEntry = z.object({
  device: z.string().min(1).max(253),
  /** The relay's own words: which change, of which incident, and how it ended. */
  reason: z.string().min(1).max(2000),
  since: z.string(),
  incident_id: z.string().nullable(),
  change_id: z.string().nullable(),
});
export type QuarantineEntry = z.infer<typeof QuarantineEntry>;

/** One spelling of a device name for lookups (as the approvals and the inventory compare them). */
export const quarantineKey = (device: string) => device.trim().toLowerCase();

/** What /health, the cards, the tray and /ui say about a quarantined device. */
export const quarantineLine = (e: Pick<QuarantineEntry, 'device' | 'since' | 'reason'>) => `${e.device} is quarantined since ${e.since}: ${e.reason}`;

/** A person's clear: when, and by whom. */
export interface QuarantineClear {
  at: string;
  by: string;
}

/**
 * What the store answers to a quarantine: the one in force (the earlier one when there was one), or,
 * for a quarantine written late (decided while the store was away), the person's clear that came
 * after it was decided and so overrules it.
 */
export type QuarantineAdded = { entry: QuarantineEntry; added: boolean; clearedAfter?: undefined } | { clearedAfter: QuarantineClear };

/** Where quarantines are kept: the laptop's data folder, or the team's database (every relay reads the same). */
export interface QuarantineBackend {
  /** Every device quarantined now. */
  load(): Promise<QuarantineEntry[]>;
  /**
   * Quarantines the device unless it is already. `late`: decided earlier and not written then (the
   * store was away); a store that keeps clears refuses it when a person cleared the device after it was decided.
   */
  add(entry: QuarantineEntry, opts?: { late?: boolean }): Promise<QuarantineAdded>;
  /** Lifts it; answers the entry that was lifted, or undefined when the device was not quarantined. `clear` is kept by a store that keeps clears. */
  remove(device: string, clear?: QuarantineClear): Promise<QuarantineEntry | undefined>;
}

/** In memory only: a relay without a data folder of its own (the tests' in-memory store). */
export function memoryQuarantine(): QuarantineBackend {
  const held = new Map<string, QuarantineEntry>();
  return {
    load: async () => [...held.values()],
    async add(entry) {
      const before = held.get(quarantineKey(entry.device));
      if (before) return { entry: before, added: false };
      held.set(quarantineKey(entry.device), entry);
      return { entry, added: true };
    },
    async remove(device) {
      const before = held.get(quarantineKey(device));
      held.delete(quarantineKey(device));
      return before;
    },
  };
}
