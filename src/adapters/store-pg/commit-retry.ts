import type { Logger } from 'pino';
import { databaseErrorMessage } from './database';
import { WriteRefusedError } from './isolate';

/** New incidents the database holds other incidents under the ids of: not stored, and said so. */
export class IncidentIdConflictError extends Error {
  override readonly name = 'IncidentIdConflictError';
}

/**
 * Whether the journal reaches the database: failures in a row and the last one's message, and the
 * retry after a failed commit, spaced further each failure in a row.
 */
export function createCommitRetry(deps: { logger: Logger; delay: (attempt: number) => number; retry: () => void; pendingCount: () => number }) {
  const { logger } = deps;
  let failures = 0;
  let lastError: string | undefined;
  let retryTimer: NodeJS.Timeout | null = null;
  let closed = false;
  return {
    reachable() {
      if (failures > 0) logger.info({ after_failures: failures }, 'database reachable again: queued writes committed');
      failures = 0;
      lastError = undefined;
    },
    /** A commit failed: reported, and tried again later unless nothing is left to retry. */
    failed(error: unknown) {
      const message = databaseErrorMessage(error);
      if (error instanceof IncidentIdConflictError) {
        // Written already, the rest of the batch: nothing to retry, only to report.
        logger.error({ err_message: message }, `incident id conflict: ${message}`);
        return;
      }
      // Set aside and reported, the rest written: nothing to retry.
      if (error instanceof WriteRefusedError) return;
      failures += 1;
      if (lastError !== message) logger.error({ err_message: message, pending_writes: deps.pendingCount() }, `database write failed; retrying: ${message}`);
      lastError = message;
      if (!closed && !retryTimer) {
        retryTimer = setTimeout(() => {
          retryTimer = null;
          deps.retry();
        }, deps.delay(failures - 1));
        retryTimer.unref?.();
      }
    },
    failures: () => failures,
    lastError: () => lastError,
    close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
    },
  };
}
