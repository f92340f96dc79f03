import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

  const read = (): QuarantineEntry[] => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const parsed = FileShape.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${file} cannot be read (${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}): fix or remove it after checking the devices it names`);
    return parsed.data.devices;
  };
  const write = (devices: QuarantineEntry[]) => {
    const tmp = join(dataDir, `.quarantine.json.${process.pid}.tmp`);
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ version: 1, devices }, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    const dir = openSync(dirname(file), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  };
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
