import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { jitteredBackoff, type BackoffPolicy } from '../../core/backoff';
import { systemClock, type Clock } from '../../core/clock';
import { findFreePort } from './free-port';
import { resolveOpencodeBinary } from './opencode-binary';
import { EarlyExitError, killAllNow, killOpencode, launchOpencode, type LaunchDeps, type Running } from './opencode-launch';
import { runtimeEnv } from './embedded-env';
import { embeddedStates } from './embedded-state';
import { createRuntimeTmpdir } from './runtime-tmpdir';
import { createRedactor } from './runtime-errors';
import type { RuntimeEndpoint } from '../../core/agent-runtime';
import { errorText } from '../../core/error-body';

export type EmbeddedState = 'starting' | 'ready' | 'restarting' | 'stopped';

export interface EmbeddedRuntimeOptions {
  /** Project folder: opencode reads `.opencode/` and `opencode.json` from here. */
  cwd: string;
  logger: Logger;
  /** Added to (and overriding) the inherited environment. */
  env?: Record<string, string | undefined>;
  /** Inherited variables the runtime must not see, e.g. the relay's own secrets. */
  omitEnv?: string[];
  clock?: Clock;
  /** How long opencode may take to print its "listening" line. */
  startTimeoutMs?: number;
  /** Fixed port (e.g. to come back on the same URL); default: a free loopback port. */
  port?: number;
  /** Fixed password; default: 32 random bytes. */
  password?: string;
  username?: string;
  /** opencode executable; default: the one installed from npm. */
  binary?: string;
  /** Delay before restart attempt n (0-based) after the runtime died. */
  restartDelay?: BackoffPolicy;
  /** SIGTERM → SIGKILL grace on stop. */
  stopGraceMs?: number;
}

export interface EmbeddedRuntime {
  readonly endpoint: RuntimeEndpoint;
  state(): EmbeddedState;
  /** Called on every state change; returns the unsubscribe function. */
  onState(fn: (state: EmbeddedState) => void): () => void;
  /** pid of the running opencode process, if any. */
  pid(): number | undefined;
  /** Stops supervising and ends the runtime (SIGTERM, then SIGKILL after the grace). Idempotent. */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

/** A run that lasted this long was healthy: the next crash restarts without a long wait. */
const STABLE_MS = 60_000;
const INITIAL_ATTEMPTS = 3;

export async function startEmbeddedRuntime(opts: EmbeddedRuntimeOptions): Promise<EmbeddedRuntime> {
  const clock = opts.clock ?? systemClock;
  const log = opts.logger.child({ component: 'embedded-runtime' });
  const binary = opts.binary ?? resolveOpencodeBinary();
  const username = opts.username ?? 'opencode';
  const password = opts.password ?? randomBytes(32).toString('base64url');
  const redact = createRedactor([password]);
  // Its first start (installing its own plugins, indexing the project) can take well over 30 s on a busy laptop or CI machine.
  const startTimeoutMs = opts.startTimeoutMs ?? 120_000;
  const stopGraceMs = opts.stopGraceMs ?? 5_000;
  const restartDelay = opts.restartDelay ?? jitteredBackoff({ baseMs: 500, maxMs: 30_000 });
  let port = opts.port ?? (await findFreePort());
  const tmpdir = createRuntimeTmpdir();
  const env = runtimeEnv(opts, { username, password, tmpdir: tmpdir.path }, log);
  const launchDeps = (): LaunchDeps => ({ binary, cwd: opts.cwd, env, port, clock, startTimeoutMs, stopGraceMs, redact, log });

  const states = embeddedStates(log, () => endpoint.url);
  const setState = states.set;

  const live = new Set<Running>();
  let current: Running | undefined;
  let stopping = false;
  let stopPromise: Promise<void> | undefined;
  let restartTimer: { cancel(): void } | undefined;
  let attempt = 0;
  const endpoint: RuntimeEndpoint = { url: `http://127.0.0.1:${port}`, username, password };

  // Last resort when the relay exits without stop(): the guard notices too, this is just faster.
  const onProcessExit = () => {
    killAllNow(live);
    tmpdir.remove();
  };
  process.on('exit', onProcessExit);

  function supervise(running: Running) {
    current = running;
    void running.proc.exited.then((exit) => {
      if (stopping || current !== running) return;
      current = undefined;
      if (running.readyAt !== undefined && clock.now().getTime() - running.readyAt >= STABLE_MS) attempt = 0;
      log.warn({ code: exit.code, signal: exit.signal, url: endpoint.url }, 'embedded agent runtime died; restarting');
      setState('restarting');
      scheduleRestart();
    });
  }

  function scheduleRestart() {
    const delay = restartDelay(attempt++);
    restartTimer = clock.setTimeout(() => {
      restartTimer = undefined;
      if (stopping) return;
      launchOpencode(launchDeps(), live).then(
        (running) => {
          if (stopping) return void killOpencode(running, 0, clock);
          supervise(running);
          setState('ready');
        },
        (err: unknown) => {
          if (stopping) return;
          log.warn({ err: errorText(err), attempt }, 'embedded agent runtime restart failed');
          scheduleRestart();
        },
      );
    }, delay);
  }

  async function stop({ graceMs = stopGraceMs }: { graceMs?: number } = {}): Promise<void> {
    if (stopPromise) return stopPromise;
    stopping = true;
    restartTimer?.cancel();
    stopPromise = (async () => {
      await Promise.all([...live].map((r) => killOpencode(r, graceMs, clock)));
      current = undefined;
      process.off('exit', onProcessExit);
      tmpdir.remove();
      setState('stopped');
    })();
    return stopPromise;
  }

  // A free port can be taken between picking and binding; only then is another port worth a try.
  for (let i = 1; ; i++) {
    try {
      const running = await launchOpencode(launchDeps(), live);
      supervise(running);
      break;
    } catch (err) {
      if (opts.port !== undefined || i >= INITIAL_ATTEMPTS || !(err instanceof EarlyExitError)) {
        await stop({ graceMs: 0 });
        throw err;
      }
      log.warn({ err: err.message, port }, 'embedded agent runtime failed to start; trying another port');
      port = await findFreePort();
      endpoint.url = `http://127.0.0.1:${port}`;
    }
  }
  setState('ready');
  log.info({ url: endpoint.url, pid: current?.pid }, 'embedded agent runtime ready');

  return {
    endpoint,
    state: states.get,
    onState: states.on,
    pid: () => current?.pid,
    stop,
  };
}
