import type { Logger } from 'pino';
import { AgentRuntimeError, describeRuntimeError, type AgentRuntime } from '../agent-runtime';
import type { Clock } from '../clock';
import type { Incidents } from '../incidents/service';
import type { Incident } from '../incidents/model';
import { createRunQueue } from './run-queue';
import { jitteredBackoff } from '../backoff';
import type { ModelCheck } from './model-check';
import type { SpareSession } from './spare-session';
import { alreadyPrompted, findEarlierSession, sessionTitle } from './earlier-session';
import { inIncidentSpan } from '../../adapters/telemetry/incident-trace';
import { entries } from '../events/timeline-entries';

/** While runs are held, how often the hold is looked at again: a restored file lets them go by itself. */
const HOLD_RECHECK_MS = 2_000;

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
  /** Team relays: only incidents this relay owns are its to deliver. */
  mayDeliver?: (incidentId: string) => boolean;
  /** Team relays: takes the incident for delivery in the database; false when another relay has it. */
  claim?: (incidentId: string) => Promise<boolean>;
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
  /** Incidents queued before this process started may already have a session (crash after create). */
  const needsAdoption = new Set<string>();
  let failures = 0;
  let retryTimer: { cancel(): void } | null = null;
  let stopped = false;
  /** Why no run may start now (the runtime's files differ from what the relay ships), or null. */
  let holdCheck: (() => string | null) | undefined;
  /** The hold already written on each incident's timeline: one line per reason, not one per recheck. */
  const heldFor = new Map<string, string>();
  /** Its own timer, not the backoff's: a held queue still takes (and holds, saying so) each new alert. */
  let holdTimer: { cancel(): void } | null = null;

  // Kept from each incident's changes rather than read off every open incident per submit.
  const runs = createRunQueue();
  for (const incident of incidents.open()) runs.note(incident);
  const offWatch = incidents.watch((incident) => runs.note(incident));
  const mayDeliver = (id: string) => opts.mayDeliver?.(id) ?? true;

  const activeCount = () => {
    let n = inFlight.size;
    for (const id of runs.active()) if (mayDeliver(id)) n += 1;
    return n;
  };

  /** Queued incidents this relay may deliver and is not delivering yet, first in first out. */
  function* queue(): Generator<string> {
    for (const id of runs.queued()) if (!inFlight.has(id) && mayDeliver(id)) yield id;
  }

  /** Runtime calls made after a delivery (a spare's new name): `stop` waits for them. */
  const sideCalls = new Set<Promise<void>>();
  const onTheSide = (call: Promise<void>, what: string, incidentId: string) => {
    const p = call.catch((error: unknown) => logger.warn({ incident_id: incidentId, err_kind: error instanceof AgentRuntimeError ? error.kind : 'unknown' }, `${what} failed: ${describeRuntimeError(error)}`));
    sideCalls.add(p);
    void p.finally(() => sideCalls.delete(p));
  };
  /** Spares taken whose prompt has not gone out yet (a failed attempt keeps the session for the retry). */
  const unnamed = new Set<string>();

  /** True when delivered (the runtime answered): the next queued alert may go. */
  async function deliver(incidentId: string): Promise<boolean> {
    let ended = () => {};
    const end = new Promise<void>((resolve) => (ended = resolve));
    try {
      // Under the incident's trace: the runtime's calls carry it on (traceparent).
      return await inIncidentSpan(incidents.get(incidentId), 'deliver', {}, () => deliverOnce(incidentId, end));
    } finally {
      ended();
    }
  }

  /** `end` settles when this delivery is over: what it asks the runtime on the side waits for it. */
  async function deliverOnce(incidentId: string, end: Promise<void>): Promise<boolean> {
    const log = logger.child({ incident_id: incidentId });
    let incident = incidents.get(incidentId);
    if (!incident || incident.state !== 'queued') return true;
    // Before the claim and the session: a held incident stays queued, untouched, and on this relay.
    const held = holdCheck?.();
    if (held) {
      if (heldFor.get(incidentId) !== held) {
        heldFor.set(incidentId, held);
        incidents.update(incidentId, (cur) => ({ delivery: { ...cur.delivery, last_error: held } }));
        incidents.record(incidentId, entries.deliveryHeld, `Not delivered: ${held}. The incident stays queued and goes out once the runtime is as shipped.`, { reason: held });
        log.error(`run held: ${held}`);
      }
      holdTimer ??= stopped
        ? null
        : clock.setTimeout(() => {
            holdTimer = null;
            pump();
          }, HOLD_RECHECK_MS);
      return false;
    }
    if (heldFor.delete(incidentId)) {
      incidents.update(incidentId, (cur) => ({ delivery: { ...cur.delivery, last_error: null } }));
      incidents.record(incidentId, entries.deliveryResumed, 'The runtime is as shipped again: delivering.');
    }
    try {
      if (opts.claim && !(await opts.claim(incidentId))) {
        log.debug('another relay delivers this incident');
        return true;
      }
      const model = await opts.modelCheck?.refresh({ after: end });
      if (model?.state === 'missing') {
        // Fails fast and says why, rather than a minute later with a provider error, or worse, on a hosted default.
        const at = clock.now().toISOString();
        incidents.transition(incidentId, 'fail', () => ({ outcome: { kind: 'failed', summary: model.message, at } }));
        incidents.record(incidentId, entries.deliveryRefused, model.message);
        log.error(model.message);
        return true;
      }
      let sessionId = incident.session_id;
      const fromBefore = needsAdoption.has(incidentId);
      if (!sessionId && fromBefore) {
        const earlier = await findEarlierSession(agent, incident, incidents.promptText(incidentId));
        sessionId = earlier?.id ?? null;
        if (earlier?.spare) unnamed.add(earlier.id);
        if (sessionId) {
          incidents.update(incidentId, () => ({ session_id: sessionId }));
          incidents.record(incidentId, entries.sessionAdopted, `Found session ${sessionId} created before a restart`, { session_id: sessionId });
        }
      }
      const sentBefore = sessionId !== null && fromBefore && (await alreadyPrompted(agent, sessionId));
      needsAdoption.delete(incidentId);
      const spare = sessionId ? null : (spares?.take() ?? null);
      if (!sessionId) {
        if (spare) unnamed.add(spare);
        const session = spare ? { id: spare } : await agent.createSession({ title: sessionTitle(incident) });
        sessionId = session.id;
        // Lazy: written with the delivery a moment later, not in a store write of its own on the alert's
        // path; a crash in between leaves the incident queued without it, and the session is found
        // again (by its title, or a spare by its prompt: needsAdoption), never created twice.
        incident = incidents.update(incidentId, () => ({ session_id: session.id }), { lazy: true });
        incidents.record(incidentId, entries.sessionCreated, `Agent session ${session.id} ${spare ? 'taken (made ready before the alert)' : 'created'}`, { session_id: session.id });
      }
      const text = incidents.promptText(incidentId);
      if (text === undefined) throw new Error('the prompt recorded at intake is missing from the timeline');
      // Sent before a crash: a second prompt would start a second run in the same session.
      if (!sentBefore) await agent.promptAsync(sessionId, { agent: agentName, text });
      const delivered = (cur: Incident) => ({ delivery: { ...cur.delivery, attempts: cur.delivery.attempts + 1, next_attempt_at: null, last_error: null } });
      // The session may have failed already while the prompt was being sent: then only the delivery is noted.
      if (incidents.can(incidentId, 'deliver')) incidents.transition(incidentId, 'deliver', delivered);
      else incidents.update(incidentId, delivered);
      incidents.record(incidentId, entries.promptSent, sentBefore ? `Prompt reached ${agentName} before a restart; not sent again` : `Prompt sent to ${agentName}`, {
        session_id: sessionId,
        agent: agentName,
        ...(sentBefore ? { sent_before_restart: true } : {}),
      });
      log.info({ session_id: sessionId }, 'incident delivered to the agent runtime');
      failures = 0;
      if (unnamed.delete(sessionId)) {
        // After the answer, off the alert's path: the operator's terminal lists the run under its incident.
        onTheSide(agent.renameSession(sessionId, sessionTitle(incident)), 'naming the session', incidentId);
        spares?.fill();
      }
      return true;
    } catch (error) {
      failures += 1;
      const delay = retryDelay(failures - 1);
      const message = describeRuntimeError(error);
      const lostSession = error instanceof AgentRuntimeError && error.kind === 'not_found';
      // A timed-out create may still have created the session: look for it before creating another.
      if (error instanceof AgentRuntimeError && error.kind === 'timeout') needsAdoption.add(incidentId);
      incidents.update(incidentId, (cur) => ({
        // The runtime forgot the session (fresh storage): start a new one next time.
        session_id: lostSession ? null : cur.session_id,
        delivery: {
          ...cur.delivery,
          attempts: cur.delivery.attempts + 1,
          next_attempt_at: new Date(clock.now().getTime() + delay).toISOString(),
          last_error: message,
        },
      }));
      incidents.record(incidentId, entries.deliveryFailed, `Agent runtime not reached (${message}); retrying in ${Math.ceil(delay / 1000)} s`, {
        error: message,
      });
      log.warn({ err_kind: error instanceof AgentRuntimeError ? error.kind : 'unknown', retry_in_ms: delay }, `delivery failed: ${message}`);
      scheduleRetry(delay);
      return false;
    }
  }

  function scheduleRetry(delay: number) {
    if (stopped || retryTimer) return;
    retryTimer = clock.setTimeout(() => {
      retryTimer = null;
      pump();
    }, delay);
  }

  /** Starts as many deliveries as capacity allows; returns those it started. */
  function pump(): Map<string, Promise<void>> {
    const started = new Map<string, Promise<void>>();
    if (stopped || retryTimer) return started;
    const free = maxActiveRuns - activeCount();
    // Taken before any delivery starts: a delivery's own changes must not move the walk under it.
    const batch: string[] = [];
    for (const id of free > 0 ? queue() : []) {
      batch.push(id);
      // One at a time while failing, so a dead runtime is not hammered with the whole queue.
      if (batch.length >= free || failures > 0) break;
    }
    for (const id of batch) {
      const p = deliver(id)
        .catch((error: unknown) => {
          logger.error({ incident_id: id, err: error }, 'delivery failed unexpectedly');
          failures += 1;
          scheduleRetry(retryDelay(failures - 1));
          return false;
        })
        .then((delivered) => {
          inFlight.delete(id);
          // While recovering only one goes at a time: once it lands, the rest of the queue follows.
          if (delivered) pump();
        });
      inFlight.set(id, p);
      started.set(id, p);
      if (failures > 0) break;
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
      if (opts.resetBackoff && retryTimer) {
        retryTimer.cancel();
        retryTimer = null;
        failures = 0;
      }
      pump();
      spares?.fill();
    },
    /** At start-up: queued incidents from before a restart go out again, each in the session it may have. */
    recover() {
      for (const incident of incidents.open()) {
        if (incident.state === 'queued') needsAdoption.add(incident.incident_id);
      }
      pump();
      spares?.fill();
    },
    /**
     * Holds every run while `check` names a reason (the embedded runtime's agent files differ from
     * what the relay ships); set once by whoever starts that runtime.
     */
    holdWhile(check: () => string | null) {
      holdCheck = check;
    },
    /** Why no run starts right now (the hold's reason), for /health; null while runs may start. */
    held: (): string | null => holdCheck?.() ?? null,
    pending: () => [...queue()].length,
    active: activeCount,
    async stop() {
      stopped = true;
      offWatch();
      holdTimer?.cancel();
      retryTimer?.cancel();
      retryTimer = null;
      await Promise.allSettled([...inFlight.values()]);
      await Promise.allSettled([...sideCalls]);
      await spares?.stop();
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
