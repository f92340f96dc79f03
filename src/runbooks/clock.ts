/**
 * Time as the RAW engine and the device lab see it. Production uses the wall clock;
 * tests and `raw:test` use a virtual clock so waits and convergence delays cost nothing
 * and every run is deterministic.
 */
export interface Clock {
  now(): number;
  /** Resolves after `ms` of this clock's time. */
  sleep(ms: number): Promise<void>;
  /** Runs `fn` after `ms`; returns a cancel function. */
  setTimer(fn: () => void, ms: number): () => void;
}

export function systemClock(): Clock {
  return {
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    setTimer(fn, ms) {
      const handle = setTimeout(fn, ms);
      return () => clearTimeout(handle);
    },
  };
}

export interface VirtualClock extends Clock {
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
    now: () => now,
    advance,
    sleep(ms) {
      advance(ms);
      return Promise.resolve();
    },
    setTimer(fn, ms) {
      const timer: Timer = { at: now + Math.max(0, ms), seq: seq++, fn };
      timers.push(timer);
      return () => {
        const i = timers.indexOf(timer);
        if (i >= 0) timers.splice(i, 1);
      };
    },
  };
}
