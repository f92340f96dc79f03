import type { Logger } from 'pino';
import { AgentRuntimeError, describeRuntimeError } from '../agent-runtime';

/** Runtime calls made after a delivery (a spare's new name), off the alert's path: a stop waits for them. */
export function createSideCalls(logger: Logger) {
  const calls = new Set<Promise<void>>();
  return {
    run(call: Promise<void>, what: string, incidentId: string) {
      const p = call.catch((error: unknown) => logger.warn({ incident_id: incidentId, err_kind: error instanceof AgentRuntimeError ? error.kind : 'unknown' }, `${what} failed: ${describeRuntimeError(error)}`));
      calls.add(p);
      void p.finally(() => calls.delete(p));
    },
    settled: async () => {
      await Promise.allSettled([...calls]);
    },
  };
}
