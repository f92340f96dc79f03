/**
 * Time and timers for the bot, injected so tests drive ping, pong and backoff timers
 * instead of sleeping. Same shape as the relay's clock, so the relay can pass its own.
 */
export interface MessagingClock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

export const systemMessagingClock: MessagingClock = {
  now: () => new Date(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};
