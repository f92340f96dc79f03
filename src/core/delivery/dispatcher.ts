import type { Logger } from 'pino';
import type { AgentRuntime } from '../agent-runtime';
import type { Clock } from '../clock';
import type { Incidents } from '../incidents/service';
import { deliverableRuns } from './deliverable-runs';
import { jitteredBackoff } from '../backoff';
import type { ModelCheck } from './model-check';
import type { SpareSession } from './spare-session';
import { createDeliveryHold } from './delivery-hold';
import { createDeliverySessions } from './delivery-session';
import { createDeliverOnce } from './deliver-once';
import { createDeliveryBackoff } from './delivery-backoff';
import { createSideCalls } from './side-calls';

export interface DispatcherOptions {
  incidents: Incidents;
  agent: AgentRuntime;
  agentName: string;
  maxActiveRuns: number;
  retryBaseMs?: number;
  retryMaxMs: number;
  clock: Clock;
  logger: Logger;
  random?: () => number;
  /** Refuses to start a run on a runtime without a configured model (never a hosted default). */
  modelCheck?: ModelCheck;
  /** Whether a queued incident is this relay's to deliver (the cluster's answer: a laptop's all are). */
  mayDeliver: (incidentId: string) => boolean;
  /** Takes the incident for delivery (the cluster's: on a team, in the database); false when another relay has it. */
  claim: (incidentId: string) => Promise<boolean>;
  /** A session made ready before the alert: its delivery is then the prompt alone. */
  spare?: SpareSession;
}

/**
 * Delivers queued incidents to the agent runtime, first in first out, with at most
 * `maxActiveRuns` runs at once. A failed delivery leaves the incident queued and
 * the whole queue backs off (the runtime is down for everyone, not for one alert).
 */
export function createDispatcher(opts: DispatcherOptions) {
  const { incidents, agent, agentName, maxActiveRuns, clock, logger, spare: spares } = opts;
  const retryDelay = jitteredBackoff({ baseMs: opts.retryBaseMs ?? 500, maxMs: opts.retryMaxMs, random: opts.random });
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;
  const backoff = createDeliveryBackoff({ clock, delay: retryDelay, retry: () => pump() });
  const hold = createDeliveryHold({ incidents, clock, recheck: () => pump() });
  const sessions = createDeliverySessions({ incidents, agent, spares });

  const { activeCount, queue, offWatch } = deliverableRuns(incidents, inFlight, opts.mayDeliver);
  const sideCalls = createSideCalls(logger);
  const deliverOnce = createDeliverOnce({
    ...{ incidents, agent, agentName, clock, logger, modelCheck: opts.modelCheck, claim: opts.claim, spares, hold, sessions },
    onTheSide: sideCalls.run,
    reached: backoff.reached,
    missed: backoff.missed,
    retryAfter: backoff.retryAfter,
  });


  /** True when delivered (the runtime answered): the next queued alert may go. */
  async function deliver(incidentId: string): Promise<boolean> {
    let ended = () => {};
    const end = new Promise<void>((resolve) => (ended = resolve));
    try {
      // Under the incident's trace: the runtime's calls carry it on (traceparent).
      return await incidents.inSpan(incidentId, 'deliver', () => deliverOnce(incidentId, end));
    } finally {
      ended();
    }
  }

  /** Starts as many deliveries as capacity allows; returns those it started. */
  function pump(): Map<string, Promise<void>> {
    const started = new Map<string, Promise<void>>();
    if (stopped || backoff.waiting) return started;
    const free = maxActiveRuns - activeCount();
    // Taken before any delivery starts: a delivery's own changes must not move the walk under it.
    const batch: string[] = [];
    for (const id of free > 0 ? queue() : []) {
      batch.push(id);
      // One at a time while failing, so a dead runtime is not hammered with the whole queue.
      if (batch.length >= free || backoff.failing) break;
    }
    for (const id of batch) {
      const p = deliver(id)
        .catch((error: unknown) => {
          logger.error({ incident_id: id, err: error }, 'delivery failed unexpectedly');
          backoff.retryAfter(backoff.missed());
          return false;
        })
        .then((delivered) => {
          inFlight.delete(id);
          // While recovering only one goes at a time: once it lands, the rest of the queue follows.
          if (delivered) pump();
        });
      inFlight.set(id, p);
      started.set(id, p);
      if (backoff.failing) break;
    }
    return started;
  }

  return {
    /** After intake: delivers now if capacity allows; resolves once that attempt is done, or at once if queued. */
    submit(incidentId: string): Promise<void> {
      const started = pump();
      return started.get(incidentId) ?? inFlight.get(incidentId) ?? Promise.resolve();
    },
    /** A run ended or the runtime came back: try the queue again now. */
    kick(opts: { resetBackoff?: boolean } = {}) {
      if (opts.resetBackoff) backoff.reset();
      pump();
      spares?.fill();
    },
    /** At start-up: queued incidents from before a restart go out again, each in the session it may have. */
    recover() {
      for (const incident of incidents.open()) {
        if (incident.state === 'queued') sessions.adoptLater(incident.incident_id);
      }
      pump();
      spares?.fill();
    },
    /**
     * Holds every run while `check` names a reason (the embedded runtime's agent files differ from
     * what the relay ships); set once by whoever starts that runtime.
     */
    holdWhile(check: () => string | null) {
      hold.set(check);
    },
    /** Why no run starts right now (the hold's reason), for /health; null while runs may start. */
    held: (): string | null => hold.reason(),
    pending: () => [...queue()].length,
    active: activeCount,
    async stop() {
      stopped = true;
      offWatch();
      hold.stop();
      backoff.stop();
      await Promise.allSettled([...inFlight.values()]);
      await sideCalls.settled();
      await spares?.stop();
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
