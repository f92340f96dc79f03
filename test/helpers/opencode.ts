import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../../src/agent/embedded';
import type { RuntimeEndpoint } from '../../src/agent/types';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export interface OpencodeOptions {
  /** Project folder; default the repository (its `.opencode/agent/*.md` and `opencode.json`). */
  cwd?: string;
  /** Extra opencode config (JSON text or object), passed as `OPENCODE_CONFIG_CONTENT`. */
  configContent?: string | object;
  env?: Record<string, string | undefined>;
  logger?: Logger;
}

export interface OpencodeHarness {
  /** Stays the same across stop()/start(): same port, same password. */
  endpoint: RuntimeEndpoint;
  cwd: string;
  /** The supervisor of the current run (undefined while stopped). */
  runtime(): EmbeddedRuntime | undefined;
  /** Graceful stop; idempotent. The data (sessions) is kept for a later start(). */
  stop(): Promise<void>;
  /** Hard kill (SIGKILL), as if the runtime crashed, with no restart. Idempotent. */
  kill(): Promise<void>;
  /** Starts it again on the same URL and password. */
  start(): Promise<void>;
}

const installMarker = (version: string) => ({
  pkg: { dependencies: { '@opencode-ai/plugin': version } },
  lock: { lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': version } } } },
});

/**
 * opencode runs `npm install @opencode-ai/plugin` in every config folder that has no
 * node_modules yet (the global one and the project's `.opencode/`). Tests must not reach the
 * registry, so those folders get the files that make opencode consider the install done.
 */
function markPluginInstalled(dir: string) {
  if (existsSync(path.join(dir, 'node_modules'))) return;
  const version = (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/opencode-ai/package.json'), 'utf8')) as { version: string })
    .version;
  const { pkg, lock } = installMarker(version);
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  if (!existsSync(path.join(dir, 'package.json'))) writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg));
  writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
  // The same ignore list opencode writes itself, so none of this shows up in git.
  const ignore = path.join(dir, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, 'node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore');
}

/**
 * Starts the real opencode server (from node_modules, loopback, random port, random password)
 * through the relay's embedded-runtime code, isolated from the user's own opencode config and
 * data: XDG folders point into a temp folder removed when the test process exits.
 */
export async function startOpencode(opts: OpencodeOptions = {}): Promise<OpencodeHarness> {
  const cwd = opts.cwd ?? repoRoot;
  const home = mkdtempSync(path.join(tmpdir(), 'opencode-home-'));
  process.once('exit', () => rmSync(home, { recursive: true, force: true }));
  const xdg = {
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_DATA_HOME: path.join(home, 'data'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    XDG_STATE_HOME: path.join(home, 'state'),
  };
  markPluginInstalled(path.join(xdg.XDG_CONFIG_HOME, 'opencode'));
  if (existsSync(path.join(cwd, '.opencode'))) markPluginInstalled(path.join(cwd, '.opencode'));

  const configContent =
    opts.configContent === undefined
      ? undefined
      : typeof opts.configContent === 'string'
        ? opts.configContent
        : JSON.stringify(opts.configContent);
  const env = {
    ...xdg,
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    ...(configContent ? { OPENCODE_CONFIG_CONTENT: configContent } : {}),
    ...opts.env,
  };
  const logger = opts.logger ?? pino({ level: 'silent' });

  let runtime: EmbeddedRuntime | undefined = await startEmbeddedRuntime({
    cwd,
    logger,
    env,
    restartDelay: () => 100,
    stopGraceMs: 3_000,
  });
  const endpoint = { ...runtime.endpoint };
  const port = Number(new URL(endpoint.url).port);

  let ending: Promise<void> | undefined;
  const end = (graceMs?: number) => {
    const r = runtime;
    runtime = undefined;
    if (r) ending = r.stop(graceMs === undefined ? {} : { graceMs });
    return ending ?? Promise.resolve();
  };

  return {
    endpoint,
    cwd,
    runtime: () => runtime,
    stop: () => end(),
    kill: () => end(0),
    async start() {
      if (runtime) return;
      await ending;
      ending = undefined;
      runtime = await startEmbeddedRuntime({
        cwd,
        logger,
        env,
        port,
        password: endpoint.password,
        username: endpoint.username,
        restartDelay: () => 100,
        stopGraceMs: 3_000,
      });
    },
  };
}
