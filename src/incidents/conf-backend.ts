import Conf from 'conf';
import { resolve } from 'node:path';
import type { KeyValueBackend } from './store';

/**
 * The headless relay's backend: `conf` writes atomically (temp file + rename), so a
 * crash mid-write leaves the previous index, never a torn one. The tray passes an
 * electron-store instance instead, which is the same library underneath.
 */
export function createConfBackend(dataDir: string, name = 'incidents'): KeyValueBackend {
  const conf = new Conf<Record<string, unknown>>({
    cwd: resolve(dataDir),
    configName: name,
    projectName: 'fault-relay',
    clearInvalidConfig: false,
    configFileMode: 0o600,
    // Compact: the file is machine-read and rewritten often.
    serialize: (value) => JSON.stringify(value),
  });
  return { get: (key) => conf.get(key), set: (key, value) => conf.set(key, value) };
}

/** Open incidents and the archive of finished ones, in two files so a state change rewrites only the small one. */
export function createConfBackends(dataDir: string): { open: KeyValueBackend; archive: KeyValueBackend } {
  return { open: createConfBackend(dataDir, 'incidents'), archive: createConfBackend(dataDir, 'incidents-archive') };
}
