/** Time and timers, injected so tests drive them instead of sleeping. */
export interface Clock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

/**
 * A clock whose waits are its own: the RAW engine and the device lab sleep on it, so a virtual one
 * (harness/raw-tests/clock.ts) moves itself forward and a 10 s wait costs nothing in tests and `raw:test`.
 */
export interface SleepingClock extends Clock {
  /** Resolves after `ms` of this clock's time. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * A clock that reads `start` at once and then moves with real time; its timers are real. For a demo
 * or an eval whose verdicts must not depend on the day it runs (a freeze, a change window).
 */
export function clockStartingAt(start: Date): Clock {
  const offset = start.getTime() - Date.now();
  return { now: () => new Date(Date.now() + offset), setTimeout: systemClock.setTimeout };
}
