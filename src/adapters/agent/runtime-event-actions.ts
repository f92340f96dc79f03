import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import { isTerminal } from '../../core/incidents/model';
import type { Action, SessionMemory } from './runtime-event-sessions';
import type { Incidents } from '../../core/incidents/service';
import { entries, isEntry } from '../../core/events/timeline-entries';
import { excerpt } from './event-excerpt';
import { heldBehind } from '../../core/approvals/held-view';
import { createPartActions, type SessionBase } from './runtime-part-actions';

export { EXCERPT_CHARS, excerpt } from './event-excerpt';

/**
 * The timeline entry each kind of runtime event becomes. Building an action may teach the
 * memory a parent (so routing can find it); writing waits until the session is known to be ours.
 */
export function createEventActions(deps: {
  incidents: Pick<Incidents, 'get' | 'record' | 'transition' | 'timeline'>;
  logger: Logger;
  clock: Clock;
  memory: SessionMemory;
  onSessionFailed?: (incidentId: string, message: string) => void;
}) {
  const { incidents, logger, clock } = deps;
  const { parentOf, agentOf, seen, once } = deps.memory;

  const who = (sessionId: string) => agentOf.get(sessionId) ?? 'agent';
  const base = (sessionId: string, isRoot: boolean): SessionBase => ({
    session_id: sessionId,
    agent: agentOf.get(sessionId),
    ...(isRoot ? {} : { subagent: true, parent_session_id: parentOf.get(sessionId) ?? undefined }),
  });

  function agentStarted(sessionId: string, name: string): Action {
    return {
      sessionId,
      run({ incident }, isRoot) {
        const key = `agent|${sessionId}|${name}`;
        if (seen.has(key)) return;
        seen.set(key, true);
        // After a restart the entry may already be there from before.
        const before = incidents
          .timeline(incident.incident_id)
          .some((e) => isEntry(e, entries.agentStarted) && e.session_id === sessionId && e.agent === name);
        if (before) return;
        incidents.record(incident.incident_id, entries.agentStarted, isRoot ? `${name} started` : `${name} started (subagent)`, {
          ...base(sessionId, isRoot),
          agent: name,
        });
      },
    };
  }

  function retryAction(sessionID: string, status: { attempt?: number; message?: string; next?: number }): Action {
    const { attempt, message, next } = status;
    return {
      sessionId: sessionID,
      run({ incident }, isRoot) {
        if (!once(`retry|${sessionID}|${attempt ?? message}`)) return;
        const why = excerpt(message ?? 'model provider unavailable');
        const label = attempt === undefined ? 'Model provider retry' : `Model provider retry ${attempt}`;
        incidents.record(incident.incident_id, entries.runtimeRetry, `${label}: ${why}`, {
          ...base(sessionID, isRoot),
          attempt,
          ...(next ? { next_at: new Date(next).toISOString() } : {}),
        });
      },
    };
  }

  function idleAction(sessionID: string): Action {
    return {
      sessionId: sessionID,
      run({ incident }, isRoot) {
        if (!isRoot) return;
        const id = incident.incident_id;
        incidents.record(id, entries.sessionIdle, `${who(sessionID)} idle`, base(sessionID, true));
        const current = incidents.get(id);
        // A request the relay holds (the device busy or quarantined) is a run waiting for its answer, as one awaiting approval is.
        if (current?.state === 'running' && !current.outcome && !heldBehind(incidents.timeline(id))) {
          logger.warn({ incident_id: id }, 'agent stopped without reporting an outcome');
          incidents.record(id, entries.warning, 'agent stopped without reporting an outcome', { session_id: sessionID });
        }
      },
    };
  }

  function sessionError(sessionId: string, name: string, message: string | undefined): Action {
    const summary = message ? `${name}: ${message}` : name;
    return {
      sessionId,
      run({ incident }, isRoot) {
        // An unknown agent makes the runtime report the same error twice.
        if (!once(`error|${sessionId}|${summary}`)) return;
        const id = incident.incident_id;
        const shown = excerpt(summary);
        if (!isRoot) {
          incidents.record(id, entries.sessionError, `${who(sessionId)} (subagent) failed: ${shown}`, { ...base(sessionId, false), error: shown });
          return;
        }
        incidents.record(id, entries.sessionError, `Agent session failed: ${shown}`, { ...base(sessionId, true), error: shown });
        const current = incidents.get(id);
        if (!current || isTerminal(current.state)) return;
        incidents.transition(id, 'fail', () => ({ outcome: { kind: 'failed', summary: shown, at: clock.now().toISOString() } }));
        logger.warn({ incident_id: id, session_id: sessionId }, `agent session failed: ${shown}`);
        try {
          deps.onSessionFailed?.(id, shown);
        } catch (error) {
          logger.error({ err: error, incident_id: id }, 'session failure handler failed');
        }
      },
    };
  }

  return { agentStarted, ...createPartActions({ incidents, memory: deps.memory, who, base }), retryAction, idleAction, sessionError };
}
