import type { AgentRuntime } from '../agent-runtime';
import type { Incidents } from '../incidents/service';
import type { Incident } from '../incidents/model';
import type { SpareSession } from './spare-session';
import { alreadyPrompted, findEarlierSession, sessionTitle } from './earlier-session';
import { entries } from '../events/timeline-entries';

/**
 * The session an incident's prompt goes to: one found from before a restart, a spare made ready
 * before the alert, or a new one; never a second one for the same incident.
 */
export function createDeliverySessions(deps: { incidents: Incidents; agent: AgentRuntime; spares: SpareSession | undefined }) {
  const { incidents, agent, spares } = deps;
  /** Incidents queued before this process started may already have a session (crash after create). */
  const needsAdoption = new Set<string>();
  /** Spares taken whose prompt has not gone out yet (a failed attempt keeps the session for the retry). */
  const unnamed = new Set<string>();

  return {
    /** Its session may exist already: look for it before creating one. */
    adoptLater: (incidentId: string) => needsAdoption.add(incidentId),
    /** True once for a spare's session whose prompt went out: it is then to be named for its incident. */
    toName: (sessionId: string) => unnamed.delete(sessionId),
    /** The session to prompt, and whether the prompt reached it before a restart. */
    async sessionFor(incident: Incident): Promise<{ sessionId: string; sentBefore: boolean; incident: Incident }> {
      const incidentId = incident.incident_id;
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
      if (sessionId) return { sessionId, sentBefore, incident };
      const spare = spares?.take() ?? null;
      if (spare) unnamed.add(spare);
      const session = spare ? { id: spare } : await agent.createSession({ title: sessionTitle(incident) });
      // Lazy: written with the delivery a moment later, not in a store write of its own on the alert's
      // path; a crash in between leaves the incident queued without it, and the session is found
      // again (by its title, or a spare by its prompt: needsAdoption), never created twice.
      const updated = incidents.update(incidentId, () => ({ session_id: session.id }), { lazy: true });
      incidents.record(incidentId, entries.sessionCreated, `Agent session ${session.id} ${spare ? 'taken (made ready before the alert)' : 'created'}`, { session_id: session.id });
      return { sessionId: session.id, sentBefore, incident: updated };
    },
  };
}
export type DeliverySessions = ReturnType<typeof createDeliverySessions>;
