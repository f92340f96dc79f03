import type { Logger } from 'pino';
import { compareRuntimeConfig, describeConfigDifferences, type RuntimeConfigShape } from './runtime-config';
import { errorText } from '../../core/error-body';

/**
 * Asks the runtime what it runs with (`GET /agent`, `GET /config`) when it becomes ready and then
 * whenever the model check asks (before runs, at most every 5 s, and for /health/deep), and holds
 * every run while the answer differs from the shipped shape: an external runtime (`AGENT_URL`) is only known by what it reports, and an embedded one can be
 * changed through its API (`PATCH /config`). An unanswered question keeps the last answer: an
 * unreachable runtime is the runtime check's problem, and no run reaches it anyway.
 */
export function createRuntimeConfigCheck(deps: {
  read: () => Promise<RuntimeConfigShape>;
  shipped: RuntimeConfigShape;
  logger: Logger;
}) {
  let problem: string | null = null;
  let inFlight: Promise<void> | undefined;

  async function ask(): Promise<void> {
    try {
      const differences = compareRuntimeConfig(deps.shipped, await deps.read());
      const next = differences.length ? describeConfigDifferences(differences) : null;
      if (next && next !== problem) deps.logger.error(`runs refused: ${next}`);
      if (!next && problem) deps.logger.info('the agent runtime runs the shipped configuration again');
      problem = next;
    } catch (error) {
      deps.logger.debug({ err: errorText(error) }, 'could not ask the agent runtime for its configuration');
    }
  }

  const check = (): Promise<void> => (inFlight ??= ask().finally(() => (inFlight = undefined)));

  return {
    /** Asks now; later answers come with the model check's (see ModelCheck.alsoAsk). */
    start: check,
    check,
    /** Null while the runtime reports the shipped configuration (or has not answered yet). */
    problem: () => problem,
    warnings: (): string[] => (problem ? [`Runs are refused: ${problem}.`] : []),
  };
}

export type RuntimeConfigCheck = ReturnType<typeof createRuntimeConfigCheck>;
