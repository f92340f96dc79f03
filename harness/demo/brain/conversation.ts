import { textOf, type ChatRequest } from '../scripted-model';

/** The agents of an incident run, by the first words of their prompts (`.opencode/agent/*.md`). */
export const INCIDENT_AGENTS = ['network-troubleshooter', 'ia-reader', 'kb-reader', 'fault-remediation', 'msg-notify'] as const;
export type IncidentAgent = (typeof INCIDENT_AGENTS)[number];

/** One tool call the agent made in this conversation, with its result once opencode sent it back. */
export interface ToolExchange {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** The tool's output or error text; undefined while the call has no answer yet. */
  result?: string;
  /** Index of the assistant message that made the call. */
  at: number;
}

/**
 * What one chat-completions request says about its agent's run so far. Everything a brain
 * decides comes from here, never from memory of earlier requests: that is what makes
 * repeated runs, restarts and parallel incidents safe.
 */
export interface Conversation {
  system: string;
  /** User messages in order, with their index in `messages`. */
  users: { at: number; text: string }[];
  exchanges: ToolExchange[];
  offered: Set<string>;
}

export function readConversation(request: ChatRequest): Conversation {
  const system = request.messages
    .filter((m) => m.role === 'system')
    .map((m) => textOf(m))
    .join('\n');
  const users = request.messages.flatMap((m, at) => (m.role === 'user' ? [{ at, text: textOf(m) }] : []));
  const results = new Map<string, string>();
  for (const m of request.messages) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, textOf(m));
  const exchanges: ToolExchange[] = [];
  request.messages.forEach((m, at) => {
    if (m.role !== 'assistant') return;
    for (const call of m.tool_calls ?? []) {
      exchanges.push({ id: call.id, name: call.function.name, args: parseArgs(call.function.arguments), result: results.get(call.id), at });
    }
  });
  return { system, users, exchanges, offered: new Set((request.tools ?? []).map((t) => t.function.name)) };
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Which agent speaks, from its system prompt; `undefined` for anything else (titles, other agents). */
export function agentOf(conversation: Conversation): IncidentAgent | undefined {
  const system = conversation.system.trimStart();
  if (system.startsWith('You are the network troubleshooter')) return 'network-troubleshooter';
  return INCIDENT_AGENTS.find((name) => system.startsWith(`You are ${name}.`) || system.startsWith(`You are ${name},`));
}

/** The project folder opencode runs in, from the `<env>` block it adds to every system prompt. */
export function workingDirectory(conversation: Conversation): string | undefined {
  return /Working directory:\s*(\S+)/.exec(conversation.system)?.[1];
}

/**
 * The first JSON object in a text that parses, e.g. the prompt JSON after an instruction line.
 * Tries each `{` at a line start against each closing `}` from the end.
 */
export function extractJson(text: string): unknown {
  const starts = [...text.matchAll(/^\s*\{/gm)].map((m) => m.index + m[0].indexOf('{'));
  const ends = [...text.matchAll(/\}/g)].map((m) => m.index).reverse();
  for (const start of starts) {
    for (const end of ends) {
      if (end < start) break;
      try {
        return JSON.parse(text.slice(start, end + 1));
      } catch {
        // not this pair
      }
    }
  }
  return undefined;
}

/** The `ses_…` id of a `task` result (`<task id="ses_…" state="completed">`), for resuming that subagent. */
export function taskIdOf(result: string | undefined): string | undefined {
  return /task[ _]id="?(ses_[A-Za-z0-9]+)/.exec(result ?? '')?.[1] ?? /\b(ses_[A-Za-z0-9]+)/.exec(result ?? '')?.[1];
}

/** What the subagent answered, without the `<task …><task_result>` wrapper opencode adds. */
export function taskAnswer(result: string): string {
  return /<task_result>\n?([\s\S]*?)\n?<\/task_result>/.exec(result)?.[1] ?? result;
}
