import type { Logger } from 'pino';
import type { AgentRuntime } from '../../core/agent-runtime';
import type { Clock } from '../../core/clock';
import type { RuntimeEventMapper } from './runtime-events';
import type { Incidents } from '../../core/incidents/service';
import { entries } from '../../core/events/timeline-entries';
import type { Owns } from '../../core/incidents/ownership';

/** Entries that start a turn of the agent (the run is expected to end again after them). */
const TURN_START: ReadonlySet<string> = new Set([entries.promptSent.name, entries.approvalForwarded.name]);
const TURN_END: ReadonlySet<string> = new Set([entries.sessionIdle.name, entries.sessionError.name]);
/** A prompt this old with no message stored did not start a run. */
const NO_RUN_AFTER_MS = 60_000;

/**
 * Events missed while the event stream was down (or the relay was) would leave a run
 * `running` forever. After every (re)connect this asks the runtime how each open run
 * ended and replays that through the mapper, so the timeline and the state follow.
 */
export function createRunReconciler(deps: { incidents: Incidents; agent: AgentRuntime; mapper: RuntimeEventMapper; clock: Clock; logger: Logger; owns: Owns }) {
  const { incidents, agent, mapper, clock, logger } = deps;

  const endSeen = (incidentId: string) => {
    const timeline = incidents.timeline(incidentId);
    let start = -1;
    timeline.forEach((e, i) => {
      if (TURN_START.has(e.type)) start = i;
    });
    const since = timeline.slice(start + 1);
    return { ended: since.some((e) => TURN_END.has(e.type)), startedAt: start >= 0 ? Date.parse(timeline[start]?.at ?? '') : NaN };
  };

  return async function reconcile(): Promise<void> {
    // Another relay's runs are on its runtime: it reconciles them.
    const candidates = incidents.open().filter((i) => i.state === 'running' && i.session_id && deps.owns(i.incident_id));
    if (candidates.length === 0) return;
    const busy = await agent.sessionStatus();
    for (const incident of candidates) {
      const sessionId = incident.session_id as string;
      if (busy[sessionId]) continue;
      const { ended, startedAt } = endSeen(incident.incident_id);
      if (ended) continue;
      const messages = await agent.getMessages(sessionId);
      const last = [...messages].reverse().find((m) => m.info.role === 'assistant');
      if (last?.info.error) {
        logger.warn({ incident_id: incident.incident_id }, 'a session error was missed while the event stream was down; replaying it');
        mapper.handle({ type: 'session.error', properties: { sessionID: sessionId, error: last.info.error } });
      } else if (last) {
        mapper.handle({ type: 'session.idle', properties: { sessionID: sessionId } });
      } else if (clock.now().getTime() - startedAt > NO_RUN_AFTER_MS) {
        mapper.handle({
          type: 'session.error',
          properties: { sessionID: sessionId, error: { name: 'UnknownError', data: { message: 'the runtime holds no answer for this session: the prompt did not start a run' } } },
        });
      }
    }
  };
}
