import type { Logger } from 'pino';
import type { Clock } from '../clock';
import { compareRuntimeConfig, describeConfigDifferences, type RuntimeConfigShape } from './runtime-config';

/**
 * Asks the runtime what it runs with (`GET /agent`, `GET /config`) when it becomes ready and then
 * every `intervalMs`, and holds every run while the answer differs from the shipped shape: an
 * external runtime (`AGENT_URL`) is only known by what it reports, and an embedded one can be
 * changed through its API (`PATCH /config`). An unanswered question keeps the last answer: an
 * unreachable runtime is the runtime check's problem, and no run reaches it anyway.
 */
export function createRuntimeConfigCheck(deps: {
  read: () => Promise<RuntimeConfigShape>;
  shipped: RuntimeConfigShape;
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
}) {
  const intervalMs = deps.intervalMs ?? 10_000;
  let problem: string | null = null;
  let timer: { cancel(): void } | undefined;
  let stopped = false;
  let inFlight: Promise<void> | undefined;

  async function ask(): Promise<void> {
    try {
      const differences = compareRuntimeConfig(deps.shipped, await deps.read());
      const next = differences.length ? describeConfigDifferences(differences) : null;
      if (next && next !== problem) deps.logger.error(`runs refused: ${next}`);
      if (!next && problem) deps.logger.info('the agent runtime runs the shipped configuration again');
      problem = next;
    } catch (error) {
      deps.logger.debug({ err: (error as Error).message }, 'could not ask the agent runtime for its configuration');
    }
  }

  const schedule = () => {
    if (stopped) return;
    timer = deps.clock.setTimeout(() => void check().finally(schedule), intervalMs);
  };
  const check = (): Promise<void> => (inFlight ??= ask().finally(() => (inFlight = undefined)));

  return {
    /** Asks now (the runtime just became ready) and keeps asking; resolves after the first answer. */
    start(): Promise<void> {
      timer?.cancel();
      const first = check();
      void first.finally(schedule);
      return first;
    },
    check,
    /** Null while the runtime reports the shipped configuration (or has not answered yet). */
    problem: () => problem,
    warnings: (): string[] => (problem ? [`Runs are refused: ${problem}.`] : []),
    stop() {
      stopped = true;
      timer?.cancel();
    },
  };
}

export type RuntimeConfigCheck = ReturnType<typeof createRuntimeConfigCheck>;
