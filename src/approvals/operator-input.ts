import type { Logger } from 'pino';
import { z } from 'zod';
import type { Incidents } from '../incidents/service';
import type { Approvals } from './approvals';

/**
 * What the runtime's operator-input plugin (`.opencode/plugins/operator-input.js`) reports: a
 * user message of a root session, i.e. what a person typed in opencode's terminal UI (or what
 * the relay itself prompted). The model cannot produce one: its words are assistant messages,
 * and the prompts it writes for subagents are in child sessions, which the plugin never reports.
 */
export const operatorInputSchema = z.object({
  session_id: z.string().min(1).max(128),
  message_id: z.string().min(1).max(128),
  text: z.string().max(200_000),
  /** The agent the message was addressed to. */
  agent: z.string().max(128).optional(),
  /** Set when the session is a subagent's (defence in depth: the plugin does not send those). */
  parent_id: z.string().max(128).nullable().optional(),
  /** Text opencode wrote itself (compaction, subtask follow-ups): never an operator's answer. */
  synthetic: z.boolean().default(false),
  /** The OS user running the terminal UI. */
  user: z.string().max(128).optional(),
});
export type OperatorInput = z.infer<typeof operatorInputSchema>;

export type OperatorInputResult =
  | { status: 'bound'; incident_id: string }
  | { status: 'decided'; incident_id: string; decision: 'APPROVED' | 'DENIED' }
  | { status: 'ignored'; reason: string };

/** The whole message is the answer: `APPROVED` or `DENIED`, optionally followed by a reason on the same line. */
const DECISION = /^\s*(APPROVED|DENIED)\b[\s:,.-]*([^\r\n]*)$/i;
const HEADED_ID = /"incident_id"\s*:\s*"(HEADED-[A-Za-z0-9_.:-]{1,60})"/g;

export function createOperatorInput(deps: { incidents: Incidents; approvals: Pick<Approvals, 'decide'>; agentName: string; logger: Logger }) {
  const { incidents, logger } = deps;

  /** The pasted headed prompt names its incident: the first root session that shows it becomes that run. */
  function bind(input: OperatorInput): OperatorInputResult {
    for (const match of input.text.matchAll(HEADED_ID)) {
      const incident = incidents.get(match[1] ?? '');
      if (!incident || incident.kind !== 'headed' || incident.session_id) continue;
      incidents.update(incident.incident_id, () => ({ session_id: input.session_id }));
      incidents.record(incident.incident_id, 'headed.bound', `Operator${input.user ? ` ${input.user}` : ''} pasted the prompt into the terminal UI (session ${input.session_id})`, { session_id: input.session_id });
      logger.info({ incident_id: incident.incident_id, session_id: input.session_id }, 'headed incident bound to its terminal session');
      return { status: 'bound', incident_id: incident.incident_id };
    }
    return { status: 'ignored', reason: 'not a session of any incident' };
  }

  return function onOperatorInput(input: OperatorInput): OperatorInputResult {
    if (input.parent_id) return { status: 'ignored', reason: 'a subagent session: its prompts are written by the model' };
    if (input.synthetic) return { status: 'ignored', reason: 'synthetic text' };
    const incident = incidents.bySession(input.session_id);
    if (!incident) return bind(input);
    const answer = DECISION.exec(input.text);
    if (!answer) return { status: 'ignored', reason: 'not a decision' };
    const decision = (answer[1] ?? '').toUpperCase() as 'APPROVED' | 'DENIED';
    if (input.agent && input.agent !== deps.agentName) {
      incidents.record(incident.incident_id, 'operator.ignored', `A typed ${decision} addressed to agent ${input.agent} was ignored: decisions are typed to ${deps.agentName}`);
      return { status: 'ignored', reason: `addressed to ${input.agent}` };
    }
    const result = deps.approvals.decide(incident.incident_id, decision, { id: input.user ? `${input.user} (terminal)` : 'operator (terminal)' }, 'terminal', answer[2]);
    if (result.status !== 'accepted') {
      incidents.record(incident.incident_id, 'operator.ignored', `Typed ${decision} changed nothing: ${result.status === 'already_decided' ? `already ${result.approval.decision} by ${result.approval.by} via ${result.approval.channel}` : 'no approval is pending'}`);
      return { status: 'ignored', reason: result.status };
    }
    return { status: 'decided', incident_id: incident.incident_id, decision };
  };
}
