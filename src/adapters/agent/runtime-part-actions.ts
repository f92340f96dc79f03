import type { RuntimePart } from './runtime-event-schemas';
import type { Action, SessionMemory } from './runtime-event-sessions';
import type { Incidents } from '../../core/incidents/service';
import { entries } from '../../core/events/timeline-entries';
import { excerpt } from './event-excerpt';

/** What every entry of a session carries. */
export type SessionBase = {
  session_id: string;
  agent: string | undefined;
  subagent?: boolean;
  parent_session_id?: string | undefined;
};

export interface PartActionContext {
  incidents: Pick<Incidents, 'record'>;
  memory: SessionMemory;
  /** The agent a session runs, for the entry's words. */
  who(sessionId: string): string;
  /** What every entry of this session carries: its session, its agent, and its parent when a subagent's. */
  base(sessionId: string, isRoot: boolean): SessionBase;
}

/** The timeline entries a message part becomes: a tool call's progress, or the model's finished words. */
export function createPartActions(ctx: PartActionContext) {
  const { incidents, who, base } = ctx;
  const { parentOf, roleOf, once } = ctx.memory;

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

  return { toolAction, textAction };
}
