import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import { isTerminal } from '../../core/incidents/model';
import type { RuntimePart } from './runtime-event-schemas';
import type { Action, SessionMemory } from './runtime-event-sessions';
import type { Incidents } from '../../core/incidents/service';
import { entries, isEntry } from '../../core/events/timeline-entries';

/** Longest excerpt of model text, tool output or error a timeline entry carries. */
export const EXCERPT_CHARS = 500;

export function excerpt(text: string, max = EXCERPT_CHARS): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

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
  const { parentOf, roleOf, agentOf, seen, once } = deps.memory;

  const who = (sessionId: string) => agentOf.get(sessionId) ?? 'agent';
  const base = (sessionId: string, isRoot: boolean) => ({
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

  function toolAction(part: RuntimePart): Action | undefined {
    const state = part.state;
    if (!state || !part.tool || !part.callID) return undefined;
    if (state.status !== 'running' && state.status !== 'completed' && state.status !== 'error') return undefined;
    const { tool, callID, sessionID } = part;
    const child = state.metadata?.sessionId;
    // `task` names its child session before the child's own events arrive.
    if (tool === 'task' && child && child !== sessionID) parentOf.set(child, sessionID);
    return {
      sessionId: sessionID,
      run({ incident }, isRoot) {
        if (!once(`tool|${sessionID}|${callID}|${state.status}`)) return;
        const subagent = tool === 'task' && typeof state.input?.subagent_type === 'string' ? ` → ${state.input.subagent_type}` : '';
        const what = `${who(sessionID)}: ${tool}${subagent}`;
        const input = state.input && Object.keys(state.input).length > 0 ? excerpt(JSON.stringify(state.input), 200) : undefined;
        const data = { ...base(sessionID, isRoot), tool, call_id: callID, ...(input ? { input } : {}), ...(child ? { child_session_id: child } : {}) };
        if (state.status === 'running') incidents.record(incident.incident_id, entries.toolRunning, `${what} running`, data);
        else if (state.status === 'completed') {
          incidents.record(incident.incident_id, entries.toolCompleted, `${what} completed`, { ...data, output: excerpt(state.output ?? '') });
        } else {
          const error = excerpt(state.error ?? 'unknown error');
          incidents.record(incident.incident_id, entries.toolError, `${what} failed: ${error}`, { ...data, error });
        }
      },
    };
  }

  function textAction(part: RuntimePart): Action | undefined {
    // Complete assistant words only: user prompts carry no time, streaming parts no end yet.
    if (part.time?.end === undefined || part.synthetic || !part.text?.trim()) return undefined;
    if (roleOf.get(part.messageID) === 'user') return undefined;
    const text = part.text;
    return {
      sessionId: part.sessionID,
      run({ incident }, isRoot) {
        if (!once(`text|${part.id}`)) return;
        incidents.record(incident.incident_id, entries.agentText, excerpt(text), base(part.sessionID, isRoot));
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
        if (current?.state === 'running' && !current.outcome) {
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

  return { agentStarted, toolAction, textAction, retryAction, idleAction, sessionError };
}
