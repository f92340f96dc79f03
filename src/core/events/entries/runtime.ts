import { z } from 'zod';
import { define } from '../define';

/** Which agent session an entry is about; subagents name their parent. */
const session = {
  session_id: z.string(),
  agent: z.string().optional(),
  subagent: z.boolean().optional(),
  parent_session_id: z.string().optional(),
};
const toolCall = { ...session, tool: z.string(), call_id: z.string(), input: z.unknown().optional(), child_session_id: z.string().optional() };

/** What the agent runtime did: agents, their tool calls, sessions and the prompt's delivery. */
export const runtimeEntries = {
  agentStarted: define('agent.started', z.looseObject({ ...session, agent: z.string() }), 'agent'),
  agentText: define('agent.text', z.looseObject(session), 'message'),
  toolRunning: define('tool.running', z.looseObject(toolCall), 'tool'),
  toolCompleted: define('tool.completed', z.looseObject({ ...toolCall, output: z.string() }), 'tool'),
  toolError: define('tool.error', z.looseObject({ ...toolCall, error: z.string() }), 'error'),
  runtimeRetry: define('runtime.retry', z.looseObject({ ...session, attempt: z.number().optional(), next_at: z.string().optional() }), 'runtime'),
  sessionIdle: define('session.idle', z.looseObject(session), 'runtime'),
  sessionError: define('session.error', z.looseObject({ ...session, error: z.string() }), 'error'),
  sessionCreated: define('session.created', z.looseObject({ session_id: z.string() }), 'runtime'),
  sessionAdopted: define('session.adopted', z.looseObject({ session_id: z.string() }), 'runtime'),
  warning: define('warning', z.looseObject({ session_id: z.string() }), 'warning'),
  promptSent: define('prompt.sent', z.looseObject({ session_id: z.string(), agent: z.string(), sent_before_restart: z.boolean().optional() }), 'runtime'),
  deliveryHeld: define('delivery.held', z.looseObject({ reason: z.string() }), 'runtime'),
  deliveryResumed: define('delivery.resumed', z.looseObject({}), 'runtime'),
  deliveryRefused: define('delivery.refused', z.looseObject({}), 'error'),
  deliveryFailed: define('delivery.failed', z.looseObject({ error: z.string() }), 'error'),
};
