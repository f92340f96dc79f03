import type { Logger } from 'pino';
import { AgentRuntimeError, describeRuntimeError, type AgentRuntime } from '../agent-runtime';
import type { Clock } from '../clock';
import type { Incidents } from '../incidents/service';
import type { Incident } from '../incidents/model';
import type { ModelCheck } from './model-check';
import type { SpareSession } from './spare-session';
import { sessionTitle } from './earlier-session';
import type { DeliveryHold } from './delivery-hold';
import type { DeliverySessions } from './delivery-session';
import { entries } from '../events/timeline-entries';

export interface DeliverOnceDeps {
  incidents: Incidents;
  agent: AgentRuntime;
  agentName: string;
  clock: Clock;
  logger: Logger;
  modelCheck: ModelCheck | undefined;
  claim: (incidentId: string) => Promise<boolean>;
  spares: SpareSession | undefined;
  hold: DeliveryHold;
  sessions: DeliverySessions;
  /** Runs a runtime call after the delivery, off the alert's path. */
  onTheSide(call: Promise<void>, what: string, incidentId: string): void;
  /** The runtime answered: the backoff starts again from nothing. */
  reached(): void;
  /** The runtime was not reached: counts the failure and gives the delay before the queue tries again. */
  missed(): number;
  /** The queue tries again after `delay`. */
  retryAfter(delay: number): void;
}

/**
 * One attempt to deliver a queued incident: its prompt goes to its session. True when delivered
 * (the runtime answered, or the incident is not this relay's to deliver): the next queued alert may go.
 * `end` settles when this attempt is over: what it asks the runtime on the side waits for it.
 */
export function createDeliverOnce(deps: DeliverOnceDeps) {
  const { incidents, agent, agentName, clock, logger, spares, sessions } = deps;

  const sendPrompt = async (queued: Incident, log: Logger) => {
    const incidentId = queued.incident_id;
    const { sessionId, sentBefore, incident } = await sessions.sessionFor(queued);
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
    deps.reached();
    if (sessions.toName(sessionId)) {
      // After the answer, off the alert's path: the operator's terminal lists the run under its incident.
      deps.onTheSide(agent.renameSession(sessionId, sessionTitle(incident)), 'naming the session', incidentId);
      spares?.fill();
    }
  };

  const noteFailure = (incidentId: string, error: unknown, log: Logger) => {
    const delay = deps.missed();
    const message = describeRuntimeError(error);
    const lostSession = error instanceof AgentRuntimeError && error.kind === 'not_found';
    // A timed-out create may still have created the session: look for it before creating another.
    if (error instanceof AgentRuntimeError && error.kind === 'timeout') sessions.adoptLater(incidentId);
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
    deps.retryAfter(delay);
  };

  return async function deliverOnce(incidentId: string, end: Promise<void>): Promise<boolean> {
    const log = logger.child({ incident_id: incidentId });
    const incident = incidents.get(incidentId);
    if (!incident || incident.state !== 'queued') return true;
    // Before the claim and the session: a held incident stays queued, untouched, and on this relay.
    if (deps.hold.holds(incidentId, log)) return false;
    try {
      if (!(await deps.claim(incidentId))) {
        log.debug('another relay delivers this incident');
        return true;
      }
      const model = await deps.modelCheck?.refresh({ after: end });
      if (model?.state === 'missing') {
        // Fails fast and says why, rather than a minute later with a provider error, or worse, on a hosted default.
        const at = clock.now().toISOString();
        incidents.transition(incidentId, 'fail', () => ({ outcome: { kind: 'failed', summary: model.message, at } }));
        incidents.record(incidentId, entries.deliveryRefused, model.message);
        log.error(model.message);
        return true;
      }
      await sendPrompt(incident, log);
      return true;
    } catch (error) {
      noteFailure(incidentId, error, log);
      return false;
    }
  };
}
