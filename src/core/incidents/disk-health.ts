import type { Logger } from 'pino';
import { isDiskError } from './file-backend';
import { StoreUnavailableError } from './store';

/** How often a store whose disk refused a write tries again. */
const RETRY_MS = 2_000;

/**
 * Whether the data folder takes writes: the disk error that refused the last write, until one goes
 * through again, and the timer that tries again meanwhile.
 */
export function createDiskHealth(logger: Logger, retry: () => void) {
  let diskError: string | undefined;
  let retryTimer: NodeJS.Timeout | null = null;
  const note = (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    if (diskError === undefined) logger.error({ err: error }, 'the data folder refused a write: alerts and decisions are answered 503 until it takes writes again');
    diskError = message;
    retryTimer ??= setTimeout(() => {
      retryTimer = null;
      retry();
    }, RETRY_MS);
    retryTimer.unref?.();
  };
  return {
    note,
    /** The error a caller is given: a refused disk becomes a 503's StoreUnavailableError, anything else stays itself. */
    unavailable(error: unknown): Error {
      if (!isDiskError(error)) return error instanceof Error ? error : new Error(String(error));
      note(error);
      return new StoreUnavailableError(`The relay cannot write to its data folder (${error.code ?? 'EIO'}); nothing was recorded. Try again shortly.`);
    },
    get error() {
      return diskError;
    },
    clear() {
      diskError = undefined;
    },
    stop() {
      if (retryTimer) clearTimeout(retryTimer);
    },
  };
}
export type DiskHealth = ReturnType<typeof createDiskHealth>;
