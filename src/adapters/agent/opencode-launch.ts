import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import { spawnGuarded, type GuardedProcess } from './process-guard';

/** opencode exited before it was ready (e.g. its port was taken), as opposed to hanging. */
export class EarlyExitError extends Error {}

export interface Running {
  proc: GuardedProcess;
  pid?: number;
  readyAt?: number;
  done: boolean;
}

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
const READY = /opencode server listening on (https?:\/\/\S+)/;

export interface LaunchDeps {
  binary: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  port: number;
  clock: Clock;
  startTimeoutMs: number;
  stopGraceMs: number;
  redact: (text: string) => string;
  log: Logger;
}

/**
 * Starts `opencode serve` on the port and resolves once it says it listens (its pid known), or
 * rejects with its last lines when it exits first or takes too long. `live` holds it until it exits.
 */
export function launchOpencode(deps: LaunchDeps, live: Set<Running>): Promise<Running> {
  const { binary, port, clock, startTimeoutMs, redact, log } = deps;
  const args = ['serve', '--hostname', '127.0.0.1', '--port', String(port)];
  const proc = spawnGuarded(binary, args, { cwd: deps.cwd, env: deps.env, graceMs: deps.stopGraceMs });
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
      void killOpencode(running, 0, clock).finally(() => reject(early ? new EarlyExitError(text) : new Error(text)));
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

/** Ends a run: SIGTERM, then SIGKILL to its whole process group after the grace (at once without one). */
export async function killOpencode(running: Running, graceMs: number, clock: Clock): Promise<void> {
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

/** Last resort when the relay exits without a stop: every run still alive is killed at once. */
export function killAllNow(live: ReadonlySet<Running>) {
  for (const r of live) {
    try {
      if (r.pid) process.kill(process.platform === 'win32' ? r.pid : -r.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    r.proc.guard.kill('SIGKILL');
  }
}
