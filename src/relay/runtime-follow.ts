import type { Logger } from 'pino';
import type { AgentRuntime } from '../core/agent-runtime';
import type { ModelCheck } from '../core/delivery/model-check';
import type { Clock } from '../core/clock';
import type { Bus } from '../core/events/bus';
import type { RelayEvents } from '../core/incidents/events';
import type { Owns } from '../core/incidents/ownership';
import { createRunReconciler } from '../adapters/agent/reconcile-runs';
import { createRuntimeEventMapper, startRuntimeEventFollower } from '../adapters/agent/runtime-events';
import type { Incidents } from '../core/incidents/service';

/**
 * The runtime's event stream, followed for the relay's incidents: what the agents do becomes
 * timeline and state. On every connect, whatever ended while the stream (or the relay) was down is
 * asked for, and a missing model is known from the first connect, not from the first alert.
 */
export function followRuntime(deps: { incidents: Incidents; agent: AgentRuntime; logger: Logger; clock: Clock; owns: Owns; bus: Bus<RelayEvents>; modelCheck: Pick<ModelCheck, 'refresh'>; onSessionFailed(incidentId: string, message: string): void }) {
  const { incidents, agent, logger, clock, owns, bus, modelCheck } = deps;
  const mapper = createRuntimeEventMapper({ incidents, agent, logger, clock, owns, onSessionFailed: deps.onSessionFailed });
  const reconcile = createRunReconciler({ incidents, agent, mapper, clock, logger, owns });
  let streamUp = false;
  return startRuntimeEventFollower({
    agent,
    mapper,
    logger,
    clock,
    onStatus: (s) => {
      if (s.connected && !streamUp) {
        reconcile().catch((error: unknown) => logger.warn({ err: error }, 'could not reconcile open runs'));
        modelCheck.refresh().then(
          (m) => m.state === 'missing' && logger.error(m.message),
          () => undefined,
        );
      }
      streamUp = s.connected;
      bus.publish('health.runtime', { ok: s.connected, ...(s.error ? { error: s.error } : {}) });
    },
  });
}
