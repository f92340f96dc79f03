import Conf from 'conf';
import { resolve } from 'node:path';
import type { KeyValueBackend } from './store';

/**
 * The headless relay's backend: `conf` writes atomically (temp file + rename), so a
 * crash mid-write leaves the previous index, never a torn one. The tray passes an
 * electron-store instance instead, which is the same library underneath.
 */
export function createConfBackend(dataDir: string): KeyValueBackend {
  const conf = new Conf<Record<string, unknown>>({
    cwd: resolve(dataDir),
    configName: 'incidents',
    projectName: 'fault-relay',
    clearInvalidConfig: false,
    configFileMode: 0o600,
  });
  return { get: (key) => conf.get(key), set: (key, value) => conf.set(key, value) };
}
