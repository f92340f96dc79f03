/**
 * Watches the wall clock against the monotonic one. Approval expiries, apply windows and confirm
 * deadlines are wall-clock instants (`expires_at`, `apply_by`, `deadline`) that people and other
 * relays read; a step of the wall clock (NTP correcting a laptop after sleep, a VM restored) moves
 * them all at once, so a person should hear of it, not guess it from odd expiries.
 */
export interface ClockStep {
  /** When the step was seen (wall clock, after it). */
  at: string;
  /** How far the wall clock moved beyond what the monotonic clock saw, in ms (negative: backwards). */
  step_ms: number;
}

export function watchClockSteps(opts: {
  toleranceMs?: number;
  everyMs?: number;
  /** How long a step stays on /health. */
  showForMs?: number;
  wall?: () => number;
  monotonic?: () => number;
  onStep?: (step: ClockStep) => void;
}) {
  const tolerance = opts.toleranceMs ?? 5_000;
  const wall = opts.wall ?? Date.now;
  const monotonic = opts.monotonic ?? (() => performance.now());
  const showFor = opts.showForMs ?? 24 * 3_600_000;
  let lastWall = wall();
  let lastMono = monotonic();
  let last: (ClockStep & { seenMono: number }) | undefined;

  /** One comparison: what the wall clock moved beyond the monotonic clock since the last one. */
  const check = () => {
    const w = wall();
    const m = monotonic();
    const step = w - lastWall - (m - lastMono);
    lastWall = w;
    lastMono = m;
    if (Math.abs(step) <= tolerance) return undefined;
    last = { at: new Date(w).toISOString(), step_ms: Math.round(step), seenMono: m };
    opts.onStep?.({ at: last.at, step_ms: last.step_ms });
    return last;
  };
  const timer = setInterval(check, opts.everyMs ?? 1_000);
  timer.unref?.();
  return {
    check,
    /** The standing warning while a recent step is shown. */
    warnings(): string[] {
      if (!last || monotonic() - last.seenMono > showFor) return [];
      const s = Math.round(last.step_ms / 1000);
      return [
        `The wall clock stepped ${s > 0 ? 'forward' : 'back'} by ${Math.abs(s)} s at ${last.at}: approval expiries, apply windows and confirm deadlines follow the wall clock, so they moved with it.`,
      ];
    },
    stop: () => clearInterval(timer),
  };
}
