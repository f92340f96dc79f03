import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileDurably } from '../incidents/file-backend';
import { readJsonFile } from '../json-file';
import { z } from 'zod';
import { QuarantineEntry, quarantineKey, type QuarantineBackend } from './entry';

const FileShape = z.object({ version: z.literal(1), devices: z.array(QuarantineEntry) });

/**
 * The laptop relay's quarantines, in `<RELAY_DATA_DIR>/quarantine.json`: written whole to a temporary
 * name, fsynced, renamed into place and the folder fsynced, so a kill -9 at any point leaves the old
 * list or the new one. A file that cannot be read stops the relay (a lost quarantine is a device
 * written to that nobody cleared).
 */
export function fileQuarantine(dataDir: string): QuarantineBackend {
  const file = join(dataDir, 'quarantine.json');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });

  const read = (): QuarantineEntry[] => readJsonFile(file, FileShape, 'fix or remove it after checking the devices it names')?.devices ?? [];
  const write = (devices: QuarantineEntry[]) => replaceFileDurably(file, `${JSON.stringify({ version: 1, devices }, null, 2)}\n`);
  // Read at start: a broken file stops the relay here, not at the first change.
  read();

  return {
    load: async () => read(),
    async add(entry) {
      const devices = read();
      const before = devices.find((d) => quarantineKey(d.device) === quarantineKey(entry.device));
      if (before) return { entry: before, added: false };
      write([...devices, entry]);
      return { entry, added: true };
    },
    async remove(device) {
      const devices = read();
      const before = devices.find((d) => quarantineKey(d.device) === quarantineKey(device));
      if (before) write(devices.filter((d) => d !== before));
      return before;
    },
  };
}
