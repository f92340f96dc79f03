import type { Clock } from './clock';

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
export function wait(ms: number, clock: Pick<Clock, 'setTimeout'>, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      signal?.removeEventListener('abort', done);
      timer.cancel();
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
