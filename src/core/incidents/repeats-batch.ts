/** Writes answered together: the repeats of one turn of the event loop, settled by one append. */
export interface Batch {
  lines: string[];
  done: Promise<void>;
  settle(error?: Error): void;
}
/** `write` appends the batch: called at the end of this turn of the event loop, whether or not anyone awaits it. */
export const newBatch = (write: () => void): Batch => {
  let settle!: (error?: Error) => void;
  const done = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
  // Nobody may be waiting on it (a progress line): its error is then only the store's health.
  done.catch(() => {});
  setImmediate(() => {
    try {
      write();
    } catch {
      /* its waiters were told; the store's health says so */
    }
  });
  return { lines: [], done, settle };
};
