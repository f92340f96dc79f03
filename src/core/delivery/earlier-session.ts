import type { AgentRuntime } from '../agent-runtime';
import type { Incident } from '../incidents/model';
import { isSpareTitle } from './spare-session';

/** The name a run's session has in the runtime, which the operator's terminal lists. */
export const sessionTitle = (incident: Incident) => `${incident.incident_id} ${incident.alert_def_id} ${incident.device_hostname}`;

/**
 * An incident's session from before a restart (or a timed-out call): one named after it, or a
 * spare whose first message is its prompt (`prompt`, exact: each names its incident). `spare` is
 * true when found by its prompt, so the caller still names it.
 */
export async function findEarlierSession(
  agent: Pick<AgentRuntime, 'listSessions' | 'getMessages'>,
  incident: Incident,
  prompt: string | undefined,
): Promise<{ id: string; spare: boolean } | null> {
  const sessions = (await agent.listSessions()).filter((s) => !s.parentID);
  const named = sessions.find((s) => s.title?.startsWith(`${incident.incident_id} `));
  if (named) return { id: named.id, spare: false };
  if (prompt === undefined) return null;
  for (const s of sessions.filter((x) => isSpareTitle(x.title))) {
    const first = (await agent.getMessages(s.id)).find((m) => m.info.role === 'user');
    if (first?.parts.some((p) => p.type === 'text' && p.text === prompt)) return { id: s.id, spare: true };
  }
  return null;
}

/** True when the session already holds a prompt: sent before a crash (or a timeout) kept its delivery from being written. */
export const alreadyPrompted = async (agent: Pick<AgentRuntime, 'getMessages'>, sessionId: string) =>
  (await agent.getMessages(sessionId)).some((m) => m.info.role === 'user');
