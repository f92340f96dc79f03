import type { Bridge, UiEvent } from '../bridge/contract';

export interface LiveFeed {
  /** Every live event; returns the unsubscribe function. */
  listen(listener: (event: UiEvent) => void): () => void;
  close(): void;
}

/**
 * One subscription to the bridge shared by every view: the list and the open incident see the
 * same events in the same order, over one event stream.
 */
export function createLiveFeed(bridge: Pick<Bridge, 'subscribe'>): LiveFeed {
  const listeners = new Set<(event: UiEvent) => void>();
  const off = bridge.subscribe((event) => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (error) {
        console.error('a view failed on a live event', error);
      }
    }
  });
  return {
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      listeners.clear();
      off();
    },
  };
}
