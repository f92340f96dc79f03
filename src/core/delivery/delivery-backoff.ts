import type { Clock } from '../clock';

/**
 * The queue's backoff: a failed delivery holds the whole queue (the runtime is down for everyone,
 * not for one alert) until a retry, spaced further each failure in a row.
 */
export function createDeliveryBackoff(deps: { clock: Clock; delay: (attempt: number) => number; retry: () => void }) {
  let failures = 0;
  let timer: { cancel(): void } | null = null;
  let stopped = false;
  return {
    /** True after a failure until a delivery goes through: deliveries then go one at a time. */
    get failing() {
      return failures > 0;
    },
    /** True while a retry is waiting: nothing starts before it. */
    get waiting() {
      return timer !== null;
    },
    reached() {
      failures = 0;
    },
    /** Counts a failure; the delay before the next try. */
    missed: (): number => deps.delay(failures++),
    retryAfter(delay: number) {
      if (stopped || timer) return;
      timer = deps.clock.setTimeout(() => {
        timer = null;
        deps.retry();
      }, delay);
    },
    /** The runtime came back: a waiting retry goes now, from a clean slate. */
    reset() {
      if (!timer) return;
      timer.cancel();
      timer = null;
      failures = 0;
    },
    stop() {
      stopped = true;
      timer?.cancel();
      timer = null;
    },
  };
}
