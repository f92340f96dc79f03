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

/** Where quarantines are kept: the laptop's data folder, or the team's database (every relay reads the same). */
export interface QuarantineBackend {
  /** Every device quarantined now. */
  load(): Promise<QuarantineEntry[]>;
  /** Quarantines the device unless it is already; answers the entry in force (the earlier one when there was one). */
  add(entry: QuarantineEntry): Promise<{ entry: QuarantineEntry; added: boolean }>;
  /** Lifts it; answers the entry that was lifted, or undefined when the device was not quarantined. */
  remove(device: string): Promise<QuarantineEntry | undefined>;
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
