/**
 * A typed in-process bus. Subscribers never break each other or the publisher:
 * a throwing handler is reported through `onHandlerError` and the rest still run.
 */
export type Handler<T> = (payload: T) => void;

export interface Bus<Events extends Record<string, unknown>> {
  publish<K extends keyof Events & string>(type: K, payload: Events[K]): void;
  subscribe<K extends keyof Events & string>(type: K, handler: Handler<Events[K]>): () => void;
  /** Every event, for logs and the UI stream. */
  subscribeAll(handler: (type: keyof Events & string, payload: Events[keyof Events]) => void): () => void;
}

export function createBus<Events extends Record<string, unknown>>(
  onHandlerError: (error: unknown, type: string) => void = () => {},
): Bus<Events> {
  const handlers = new Map<string, Set<Handler<never>>>();
  const all = new Set<(type: keyof Events & string, payload: Events[keyof Events]) => void>();

  const run = (type: string, fn: () => void) => {
    try {
      fn();
    } catch (error) {
      onHandlerError(error, type);
    }
  };

  return {
    publish(type, payload) {
      for (const h of handlers.get(type) ?? []) run(type, () => (h as Handler<typeof payload>)(payload));
      for (const h of all) run(type, () => h(type, payload));
    },
    subscribe(type, handler) {
      let set = handlers.get(type);
      if (!set) handlers.set(type, (set = new Set()));
      set.add(handler);
      return () => set.delete(handler);
    },
    subscribeAll(handler) {
      all.add(handler);
      return () => all.delete(handler);
    },
  };
}
