import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { jitteredBackoff, type BackoffPolicy } from '../../core/backoff';
import { systemClock, type Clock } from '../../core/clock';
import { findFreePort } from './free-port';
import { resolveOpencodeBinary } from './opencode-binary';
import { spawnGuarded, type GuardedProcess } from './process-guard';
import { createRuntimeTmpdir } from './runtime-tmpdir';
import { createRedactor } from './runtime-errors';
import type { RuntimeEndpoint } from '../../core/agent-runtime';

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

/** opencode exited before it was ready (e.g. its port was taken), as opposed to hanging. */
class EarlyExitError extends Error {}

interface Running {
  proc: GuardedProcess;
  pid?: number;
  readyAt?: number;
  done: boolean;
}

/** A run that lasted this long was healthy: the next crash restarts without a long wait. */
const STABLE_MS = 60_000;
const INITIAL_ATTEMPTS = 3;
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
const READY = /opencode server listening on (https?:\/\/\S+)/;

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

  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of opts.omitEnv ?? []) delete env[name];
  // opencode takes configuration from its OPENCODE_* variables (OPENCODE_CONFIG_CONTENT, OPENCODE_PERMISSION,
  // OPENCODE_CONFIG, OPENCODE_CONFIG_DIR …): none is inherited, only what the caller passes in `env`.
  const dropped = Object.keys(env).filter((name) => name.startsWith('OPENCODE_'));
  for (const name of dropped) delete env[name];
  if (dropped.length) log.warn({ dropped }, 'the embedded agent runtime does not inherit OPENCODE_* variables');
  const tmpdir = createRuntimeTmpdir();
  Object.assign(env, {
    TMPDIR: tmpdir.path,
    // Offline-friendly: no models.dev catalogue download, no self-update, no LSP downloads.
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    ...opts.env,
    OPENCODE_SERVER_USERNAME: username,
    OPENCODE_SERVER_PASSWORD: password,
  });
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];

  let state: EmbeddedState = 'starting';
  const listeners = new Set<(s: EmbeddedState) => void>();
  const setState = (next: EmbeddedState) => {
    if (next === state) return;
    state = next;
    log.info({ state: next, url: endpoint.url }, 'embedded agent runtime state');
    for (const fn of listeners) {
      try {
        fn(next);
      } catch (err) {
        log.error({ err }, 'embedded runtime state listener failed');
      }
    }
  };

  const live = new Set<Running>();
  let current: Running | undefined;
  let stopping = false;
  let stopPromise: Promise<void> | undefined;
  let restartTimer: { cancel(): void } | undefined;
  let attempt = 0;
  const endpoint: RuntimeEndpoint = { url: `http://127.0.0.1:${port}`, username, password };

  // Last resort when the relay exits without stop(): the guard notices too, this is just faster.
  const onProcessExit = () => {
    for (const r of live) {
      try {
        if (r.pid) process.kill(process.platform === 'win32' ? r.pid : -r.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      r.proc.guard.kill('SIGKILL');
    }
    tmpdir.remove();
  };
  process.on('exit', onProcessExit);

  function launch(): Promise<Running> {
    const args = ['serve', '--hostname', '127.0.0.1', '--port', String(port)];
    const proc = spawnGuarded(binary, args, { cwd: opts.cwd, env, graceMs: stopGraceMs });
    const running: Running = { proc, done: false };
    live.add(running);
    void proc.runtimePid.then((pid) => (running.pid = pid));
    void proc.exited.then(() => {
      running.done = true;
      live.delete(running);
    });
    const tail: string[] = [];

    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (message: string, early = false) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        const text = `${message}${tail.length ? `: ${tail.slice(-5).join(' | ')}` : ''}`;
        void kill(running, 0).finally(() => reject(early ? new EarlyExitError(text) : new Error(text)));
      };
      const timer = clock.setTimeout(
        () => fail(`opencode did not report ready within ${startTimeoutMs} ms`),
        startTimeoutMs,
      );
      const onLine = (stream: 'stdout' | 'stderr') => (raw: string) => {
        const line = redact(raw.replace(ANSI, '')).trimEnd();
        if (!line) return;
        tail.push(line);
        if (tail.length > 20) tail.shift();
        log.debug({ stream, line }, 'opencode output');
        const ready = stream === 'stdout' && !settled ? READY.exec(line) : null;
        if (ready) {
          settled = true;
          timer.cancel();
          running.readyAt = clock.now().getTime();
          // The pid arrives on another pipe; wait for it so pid() is right as soon as we are ready.
          void proc.runtimePid.then(() => resolve(running));
        }
      };
      createInterface({ input: proc.stdout }).on('line', onLine('stdout'));
      createInterface({ input: proc.stderr }).on('line', onLine('stderr'));
      void proc.exited.then((exit) =>
        fail(`opencode exited before it was ready (${exit.error ?? `code ${exit.code}, signal ${exit.signal}`})`, true),
      );
    });
  }

  async function kill(running: Running, graceMs: number): Promise<void> {
    if (running.done) return;
    const hard = async () => {
      const pid = await running.proc.runtimePid;
      try {
        // Its whole process group (process-guard.ts): what it started goes with it.
        if (pid && !running.done) process.kill(process.platform === 'win32' ? pid : -pid, 'SIGKILL');
      } catch {
        // already gone
      }
      running.proc.guard.kill('SIGKILL');
    };
    let timer: { cancel(): void } | undefined;
    if (graceMs <= 0) void hard();
    else {
      running.proc.guard.kill('SIGTERM');
      timer = clock.setTimeout(() => void hard(), graceMs + 1_000);
    }
    await running.proc.exited;
    timer?.cancel();
  }

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
      launch().then(
        (running) => {
          if (stopping) return void kill(running, 0);
          supervise(running);
          setState('ready');
        },
        (err: Error) => {
          if (stopping) return;
          log.warn({ err: err.message, attempt }, 'embedded agent runtime restart failed');
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
      await Promise.all([...live].map((r) => kill(r, graceMs)));
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
      const running = await launch();
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
    state: () => state,
    onState(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    pid: () => current?.pid,
    stop,
  };
}
