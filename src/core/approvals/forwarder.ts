import type { Logger } from 'pino';
import { AgentRuntimeError, type AgentRuntime } from '../agent-runtime';
import { jitteredBackoff } from '../backoff';
import type { Clock } from '../clock';
import type { Incidents } from '../incidents/service';
import type { Incident } from '../incidents/model';
import type { Owns } from '../incidents/ownership';
import { humanOperatorResponse } from './human-response';
import { entries } from '../events/timeline-entries';
import { errorText } from '../error-body';

/**
 * Tells an incident's agent session the operator's decision, retried with backoff until
 * it lands. Idempotent: a decision already forwarded (forwarded_at set) is not re-sent.
 */
export function createDecisionForwarder(deps: { incidents: Incidents; agent: AgentRuntime; agentName?: string; clock: Clock; logger: Logger; owns: Owns }) {
  const { incidents, agent, clock, logger } = deps;
  const timers = new Map<string, { cancel(): void }>();
  const attempts = new Map<string, number>();
  const delay = jitteredBackoff({ baseMs: 1000, maxMs: 30_000 });
  let stopped = false;

  function forward(incidentId: string) {
    if (stopped) return;
    timers.get(incidentId)?.cancel();
    timers.delete(incidentId);
    const incident = incidents.get(incidentId);
    const approval = incident?.approval;
    // Only the relay running the incident talks to its session (a takeover may happen between retries).
    if (!incident || !approval || approval.forwarded_at || !incident.session_id || !deps.owns(incidentId)) return;
    const text = humanOperatorResponse(incident, approval);
    // The run's agent, always: without one opencode answers with its default agent.
    agent
      .promptAsync(incident.session_id, { ...(deps.agentName ? { agent: deps.agentName } : {}), text })
      .then(() => {
        attempts.delete(incidentId);
        const at = clock.now().toISOString();
        const told = (cur: Incident) => ({ approval: cur.approval ? { ...cur.approval, forwarded_at: at } : cur.approval });
        if (incidents.can(incidentId, 'resume')) incidents.transition(incidentId, 'resume', told);
        else incidents.update(incidentId, told);
        incidents.record(incidentId, entries.approvalForwarded, `Agent told: ${approval.decision}`, { decision: approval.decision });
      })
      .catch((error: unknown) => {
        if (incident.kind === 'headed' && error instanceof AgentRuntimeError && error.kind === 'not_found') {
          // The operator pasted the prompt into a terminal UI of their own runtime: the relay cannot reach
          // that session. The decision stands and the guard enforces it; the operator sees it in the tray.
          incidents.record(incidentId, entries.approvalNotForwarded, `The headed run's session is not on the relay's runtime: tell the operator in the terminal that it was ${approval.decision}`);
          logger.warn({ incident_id: incidentId }, 'headed decision not forwarded: the session is on another runtime');
          return;
        }
        const attempt = (attempts.get(incidentId) ?? 0) + 1;
        attempts.set(incidentId, attempt);
        const wait = delay(attempt - 1);
        logger.warn({ incident_id: incidentId, err: error, retry_in_ms: wait }, 'could not forward the decision to the agent; retrying');
        incidents.record(incidentId, entries.approvalForwardFailed, `Could not tell the agent yet (${errorText(error)}); retrying`);
        if (!stopped) timers.set(incidentId, clock.setTimeout(() => forward(incidentId), wait));
      });
  }

  return {
    forward,
    stop() {
      stopped = true;
      for (const t of timers.values()) t.cancel();
      timers.clear();
    },
  };
}
