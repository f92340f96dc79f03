import path from 'node:path';
import { ConfigError } from '../../config/load';
import { demoRuntimeHome } from './runtime-home';
import { assertPinnedManagedConfigEmpty, pinnedManagedConfigDir } from './managed-config';

/**
 * What `OPENCODE_CONFIG_CONTENT` may carry into the embedded runtime: the model and its provider.
 * Anything else there (an `agent` override, `permission`, `mcp`, `plugin`, `instructions` …) would
 * change what every run may do behind the shipped agent files.
 */
export const MODEL_CONFIG_KEYS = ['$schema', 'model', 'small_model', 'provider', 'enabled_providers', 'disabled_providers'] as const;

function checkedConfigContent(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(['OPENCODE_CONFIG_CONTENT is not JSON: the agent runtime was not started']);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(['OPENCODE_CONFIG_CONTENT must be a JSON object: the agent runtime was not started']);
  const other = Object.keys(parsed).filter((key) => !(MODEL_CONFIG_KEYS as readonly string[]).includes(key));
  if (other.length) {
    throw new ConfigError([
      `OPENCODE_CONFIG_CONTENT sets ${other.join(', ')}: the agent runtime was not started. The relay takes only the model from it (${MODEL_CONFIG_KEYS.slice(1).join(', ')}); the agents and their permissions are the shipped files`,
    ]);
  }
  return text;
}

/**
 * The embedded runtime's environment of its own: HOME and the XDG folders under the relay's data
 * folder, so the user's opencode folders (`~/.config/opencode`, `~/.opencode`, the XDG variants) and
 * Claude Code's files are never loaded, its managed configuration folder is one of its own instead of
 * /etc/opencode (managed-config.ts), and its sessions stay with the relay's incidents across
 * restarts. Of the OPENCODE_* variables (the runtime inherits none) only a model-only
 * `OPENCODE_CONFIG_CONTENT` passes. Provider keys come from the environment (e.g. ANTHROPIC_API_KEY).
 */
export function embeddedRuntimeEnv(opts: { env: Record<string, string | undefined>; dataDir: string; projectDir: string }): Record<string, string> {
  const home = path.join(opts.dataDir, 'runtime-home');
  const content = opts.env.OPENCODE_CONFIG_CONTENT ? checkedConfigContent(opts.env.OPENCODE_CONFIG_CONTENT) : undefined;
  assertPinnedManagedConfigEmpty(pinnedManagedConfigDir(home));
  // The project folder is left as it is (it may be read-only in an installed app).
  return { ...demoRuntimeHome(home, opts.projectDir, { markProject: false }), HOME: home, ...(content ? { OPENCODE_CONFIG_CONTENT: content } : {}) };
}
