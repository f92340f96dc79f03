import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../config/load';

/**
 * opencode's managed (system-wide) configuration. opencode 1.18.33 (read from its binary: ConfigManaged)
 * loads `opencode.json` and `opencode.jsonc` from one folder after every other source, so what is there
 * wins over the shipped agent files: `/etc/opencode` on Linux, `/Library/Application Support/opencode`
 * on macOS (plus the `ai.opencode.managed` managed preferences there), `%ProgramData%\opencode` on
 * Windows. The folder is taken from `OPENCODE_TEST_MANAGED_CONFIG_DIR` when that is set, which is how
 * the relay points its embedded runtime at a folder of its own, empty, instead. Nothing else in that
 * folder is read (agents, commands and plugins come from the project and the config folders only).
 */
export const MANAGED_CONFIG_ENV = 'OPENCODE_TEST_MANAGED_CONFIG_DIR';
export const MANAGED_CONFIG_FILES = ['opencode.json', 'opencode.jsonc'] as const;

/** The folder an opencode started without the relay's pin reads its managed configuration from. */
export function systemManagedConfigDir(platform: NodeJS.Platform = process.platform, env: Record<string, string | undefined> = process.env): string {
  if (platform === 'darwin') return '/Library/Application Support/opencode';
  if (platform === 'win32') return path.win32.join(env.ProgramData || 'C:\\ProgramData', 'opencode');
  return '/etc/opencode';
}

/** The managed configuration files present in `dir`, which an opencode reading that folder would load. */
export function managedConfigFiles(dir: string): string[] {
  return MANAGED_CONFIG_FILES.map((name) => path.join(dir, name)).filter((file) => existsSync(file));
}

/** The embedded runtime's own managed folder: under its HOME, never written by the relay, so always empty. */
export const pinnedManagedConfigDir = (runtimeHome: string) => path.join(runtimeHome, 'managed-config');

/** A file in the relay's own managed folder was put there by someone else: the runtime is not started. */
export function assertPinnedManagedConfigEmpty(dir: string): void {
  const found = managedConfigFiles(dir);
  if (found.length === 0) return;
  throw new ConfigError([
    `${found.join(', ')}: the relay writes no managed opencode configuration, and the runtime would load this over the shipped agent files; the agent runtime was not started. Remove it.`,
  ]);
}

/**
 * For a runtime the relay did not start (AGENT_URL): a managed configuration on this machine is loaded
 * by any opencode started here without the relay's pin. The relay cannot see which files that runtime
 * read; it compares what the runtime reports (/agent, /config) with what it ships and refuses runs
 * while they differ, so this names the likely cause.
 */
export function externalRuntimeManagedWarnings(dir: string = systemManagedConfigDir()): string[] {
  const found = managedConfigFiles(dir);
  if (found.length === 0) return [];
  return [
    `opencode's managed configuration ${found.join(', ')} exists on this machine: an opencode runtime started here without the relay (AGENT_URL) loads it over every other configuration. The relay compares that runtime's agents and configuration with what it ships and refuses runs while they differ.`,
  ];
}
