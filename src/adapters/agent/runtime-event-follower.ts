import type { Logger } from 'pino';
import type { AgentRuntime } from '../../core/agent-runtime';
import { systemClock, type Clock } from '../../core/clock';
import type { RuntimeEventMapper } from './runtime-events';

export interface FollowerStatus {
  connected: boolean;
  last_event_at?: string;
  error?: string;
}

export interface RuntimeEventFollower {
  status(): FollowerStatus;
  /** Closes the stream and waits for what is already received to be mapped. */
  stop(): Promise<void>;
}

/**
 * One connection to the runtime's event stream feeding the mapper. The client reconnects with
 * backoff by itself; this keeps what `/health/deep` shows.
 */
export function startRuntimeEventFollower(deps: {
  agent: Pick<AgentRuntime, 'followEvents'>;
  mapper: RuntimeEventMapper;
  logger: Logger;
  clock?: Clock;
  onStatus?: (status: FollowerStatus) => void;
}): RuntimeEventFollower {
  const { agent, mapper, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const controller = new AbortController();
  let current: FollowerStatus = { connected: false };

  const running = agent
    .followEvents(
      (event) => {
        current = { ...current, last_event_at: clock.now().toISOString() };
        mapper.handle(event);
      },
      {
        signal: controller.signal,
        onStatus({ connected, error }) {
          const { last_event_at } = current;
          current = { connected, ...(last_event_at ? { last_event_at } : {}), ...(error ? { error } : {}) };
          if (connected) logger.info('following the agent runtime event stream');
          else if (error) logger.warn({ error }, 'agent runtime event stream lost; reconnecting');
          try {
            deps.onStatus?.(current);
          } catch (err) {
            logger.error({ err }, 'event stream status handler failed');
          }
        },
      },
    )
    .catch((error: unknown) => logger.error({ err: error }, 'agent runtime event stream stopped'));

  let stopping: Promise<void> | undefined;
  return {
    status: () => ({ ...current }),
    stop: () =>
      (stopping ??= (async () => {
        controller.abort();
        await running;
        await mapper.settled();
      })()),
  };
}
