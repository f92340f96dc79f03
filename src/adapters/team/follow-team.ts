import type { Logger } from 'pino';
import type { AgentRuntime } from '../../core/agent-runtime';
import type { Clock } from '../../core/clock';
import type { Dispatcher } from '../../core/delivery/dispatcher';
import type { Incidents } from '../../core/incidents/service';
import type { TeamCoordinator } from './coordinator';
import { entries } from '../../core/events/timeline-entries';

/** A change was sent to the device (or its sending began): a run that did this is never started again. */
const CHANGE_ATTEMPTED = new Set(['claimed', 'applied', 'failed']);

/**
 * Wires a relay to its team: other relays' changes reach this relay's indexes and bus (and so its
 * /events, tray and logs), and incidents adopted from a relay that stopped are delivered again on
 * this relay's runtime, or escalated when the dead relay's run had already touched the device.
 */
export function followTeam(deps: { team: TeamCoordinator; incidents: Incidents; dispatcher: Dispatcher; clock: Clock; agent: Pick<AgentRuntime, 'abort'>; logger: Logger }): () => void {
  const { team, incidents, dispatcher, clock } = deps;
  const offChanges = team.onRemoteChanges((changes) => {
    // Another relay took over runs this one still had (its heartbeat was thought dead): two runs
    // on one fault must never both reach the device, so this relay's run stops here.
    for (const { previous, lostOwnership, incident } of changes) {
      const sessionId = previous?.session_id;
      // The new owner never goes on with this relay's session: it delivers anew or escalates.
      if (!lostOwnership || !sessionId) continue;
      deps.logger.warn({ incident_id: incident.incident_id, session_id: sessionId }, 'another relay took this run over; stopping it here');
      deps.agent.abort(sessionId).catch((error: unknown) => deps.logger.error({ incident_id: incident.incident_id, err: error }, 'could not stop a run another relay took over'));
    }
    incidents.applyRemote(changes);
    // A queued alert may have become this relay's to deliver.
    dispatcher.kick();
  });
  const offAdopted = team.onAdopted((adopted) => {
    for (const { incident, from } of adopted) {
      const id = incident.incident_id;
      const relay = `relay ${from.slice(0, 8)}`;
      if (incident.state === 'queued') {
        incidents.record(id, entries.relayTakeover, `Queued on ${relay}, which stopped: delivered by this relay instead`, { from_relay: from });
        continue;
      }
      // Relays sharing one runtime (AGENT_URL): the dead relay's session may still be running there.
      if (incident.session_id) deps.agent.abort(incident.session_id).catch(() => {});
      if (CHANGE_ATTEMPTED.has(incident.application.status)) {
        const summary = `The run on ${relay} stopped after a change was sent to ${incident.application.device ?? incident.device_hostname}: it is not repeated. A human must check the device.`;
        incidents.record(id, entries.relayTakeover, summary, { from_relay: from, application: incident.application.status });
        if (incidents.can(id, 'escalate')) incidents.transition(id, 'escalate', () => ({ outcome: { kind: 'escalated', summary, at: clock.now().toISOString() } }));
        continue;
      }
      incidents.record(id, entries.relayTakeover, `The run on ${relay} stopped before any change: delivered again to this relay's runtime (a pending approval is asked again)`, {
        from_relay: from,
        previous_session_id: incident.session_id,
      });
      if (!incidents.can(id, 'requeue')) continue;
      incidents.transition(id, 'requeue', (cur) => ({
        session_id: null,
        approval_request: null,
        approval: null,
        progress: null,
        delivery: { ...cur.delivery, next_attempt_at: null, last_error: null },
      }));
    }
    dispatcher.kick();
  });
  return () => {
    offChanges();
    offAdopted();
  };
}
