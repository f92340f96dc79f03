/**
 * Node-style timers (numeric time, handle to clear), as the agent client and the
 * embedded runtime's supervisor use them. Injected so tests can drive reconnects and restarts
 * without real waiting.
 */
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Delay before retry number `attempt` (0-based). */
export type BackoffPolicy = (attempt: number) => number;

export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  /** 0..1: the share of each delay that is randomised, so many clients do not retry in lockstep. */
  jitter?: number;
  random?: () => number;
}

export function jitteredBackoff({
  baseMs = 250,
  maxMs = 30_000,
  jitter = 0.5,
  random = Math.random,
}: BackoffOptions = {}): BackoffPolicy {
  return (attempt) => {
    const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
    return Math.round(ceiling * (1 - jitter) + ceiling * jitter * random());
  };
}

/** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
export function wait(ms: number, timers: Pick<Timers, 'setTimeout' | 'clearTimeout'>, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      signal?.removeEventListener('abort', done);
      timers.clearTimeout(handle);
      resolve();
    };
    const handle = timers.setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
