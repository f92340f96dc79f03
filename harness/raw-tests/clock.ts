import type { SleepingClock } from '../../src/core/clock';

/**
 * Time as the RAW engine and the device lab see it: the relay's one `Clock` that can also sleep.
 * Production uses the wall clock; tests and `raw:test` use a virtual clock so waits and
 * convergence delays cost nothing and every run is deterministic.
 */
export type { SleepingClock };

/** The wall clock. Its timers keep the process alive: a lab or a RAW run waiting on one is still working. */
export function realTimeClock(): SleepingClock {
  return {
    now: () => new Date(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    setTimeout(fn, ms) {
      const handle = setTimeout(fn, ms);
      return { cancel: () => clearTimeout(handle) };
    },
  };
}

export interface VirtualClock extends SleepingClock {
  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void;
}

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * Virtual time. `sleep` advances the clock itself (the sleeper is the only thing that
 * waits in a single-threaded run), so a RAW wait of 10 s returns at once with the lab's
 * timers fired in between, exactly as they would have in real time.
 */
export function createVirtualClock(startMs = Date.UTC(2025, 2, 1, 9, 0, 0)): VirtualClock {
  let now = startMs;
  let seq = 0;
  const timers: Timer[] = [];

  const advance = (ms: number) => {
    const target = now + Math.max(0, ms);
    for (;;) {
      timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = timers[0];
      if (!next || next.at > target) break;
      timers.shift();
      now = Math.max(now, next.at);
      next.fn();
    }
    now = target;
  };

  return {
    now: () => new Date(now),
    advance,
    sleep(ms) {
      advance(ms);
      return Promise.resolve();
    },
    setTimeout(fn, ms) {
      const timer: Timer = { at: now + Math.max(0, ms), seq: seq++, fn };
      timers.push(timer);
      return {
        cancel: () => {
          const i = timers.indexOf(timer);
          if (i >= 0) timers.splice(i, 1);
        },
      };
    },
  };
}
