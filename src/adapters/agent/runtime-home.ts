import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { MANAGED_CONFIG_ENV, pinnedManagedConfigDir } from './managed-config';

/**
 * opencode runs `npm install @opencode-ai/plugin` in every config folder without node_modules
 * (its global one and the project's `.opencode/`). An offline demo must not depend on the
 * registry, so those folders get the files that tell opencode the install is done.
 */
function markPluginInstalled(dir: string, version: string) {
  if (existsSync(path.join(dir, 'node_modules'))) return;
  const deps = { '@opencode-ai/plugin': version };
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  if (!existsSync(path.join(dir, 'package.json'))) writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ dependencies: deps }));
  writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: deps } } }));
  // The ignore list opencode writes itself, so none of this shows up in git.
  const ignore = path.join(dir, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, 'node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore');
}

/** The installed opencode's version: from the project's node_modules, else the relay's own (a project folder elsewhere). */
function opencodeVersion(projectDir: string): string {
  for (const from of [projectDir, import.meta.dirname]) {
    try {
      const require = createRequire(path.join(from, 'noop.js'));
      return (JSON.parse(readFileSync(require.resolve('opencode-ai/package.json'), 'utf8')) as { version: string }).version;
    } catch {
      // not installed there
    }
  }
  throw new Error('opencode-ai is not installed (npm ci)');
}

/**
 * Environment for an opencode run that keeps away from the user's own opencode config, sessions
 * and Claude Code files, and from the machine's managed opencode configuration: its XDG folders and
 * its managed folder live under `home` (the demo's data folder).
 */
export function demoRuntimeHome(home: string, projectDir: string, opts: { markProject?: boolean } = {}): Record<string, string> {
  const xdg = {
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_DATA_HOME: path.join(home, 'data'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    XDG_STATE_HOME: path.join(home, 'state'),
  };
  const version = opencodeVersion(projectDir);
  markPluginInstalled(path.join(xdg.XDG_CONFIG_HOME, 'opencode'), version);
  if ((opts.markProject ?? true) && existsSync(path.join(projectDir, '.opencode'))) markPluginInstalled(path.join(projectDir, '.opencode'), version);
  return {
    ...xdg,
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    // Not /etc/opencode (or the macOS/Windows equivalent): a folder of its own that nobody writes to.
    [MANAGED_CONFIG_ENV]: pinnedManagedConfigDir(home),
  };
}
