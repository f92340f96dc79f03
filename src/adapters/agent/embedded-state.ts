import type { Logger } from 'pino';
import type { EmbeddedState } from './embedded';

/** The embedded runtime's state, logged and told to every listener as it changes. */
export function embeddedStates(log: Logger, url: () => string) {
  let state: EmbeddedState = 'starting';
  const listeners = new Set<(s: EmbeddedState) => void>();
  return {
    get: () => state,
    set(next: EmbeddedState) {
      if (next === state) return;
      state = next;
      log.info({ state: next, url: url() }, 'embedded agent runtime state');
      for (const fn of listeners) {
        try {
          fn(next);
        } catch (err) {
          log.error({ err }, 'embedded runtime state listener failed');
        }
      }
    },
    /** Called on every state change; returns the unsubscribe function. */
    on(fn: (state: EmbeddedState) => void) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
