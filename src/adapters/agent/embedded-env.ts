import type { Logger } from 'pino';
import type { EmbeddedRuntimeOptions } from './embedded';

/**
 * The embedded runtime's environment: the relay's own, less what it must not see, with opencode
 * configured only by what the caller passes and the server's own login.
 */
export function runtimeEnv(opts: Pick<EmbeddedRuntimeOptions, 'env' | 'omitEnv'>, own: { username: string; password: string; tmpdir: string }, log: Logger): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of opts.omitEnv ?? []) delete env[name];
  // opencode takes configuration from its OPENCODE_* variables (OPENCODE_CONFIG_CONTENT, OPENCODE_PERMISSION,
  // OPENCODE_CONFIG, OPENCODE_CONFIG_DIR …): none is inherited, only what the caller passes in `env`.
  const dropped = Object.keys(env).filter((name) => name.startsWith('OPENCODE_'));
  for (const name of dropped) delete env[name];
  if (dropped.length) log.warn({ dropped }, 'the embedded agent runtime does not inherit OPENCODE_* variables');
  Object.assign(env, {
    TMPDIR: own.tmpdir,
    // Offline-friendly: no models.dev catalogue download, no self-update, no LSP downloads.
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    ...opts.env,
    OPENCODE_SERVER_USERNAME: own.username,
    OPENCODE_SERVER_PASSWORD: own.password,
  });
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}
