import { z } from 'zod';

/** Connection details of an agent runtime (opencode) server. Password is a secret. */
export interface RuntimeEndpoint {
  url: string;
  username: string;
  password: string;
}

export const sessionSchema = z.looseObject({
  id: z.string().startsWith('ses'),
  title: z.string().optional(),
  parentID: z.string().optional(),
  directory: z.string().optional(),
  time: z.looseObject({ created: z.number(), updated: z.number().optional() }).optional(),
});
export type Session = z.infer<typeof sessionSchema>;

export const runtimeHealthSchema = z.looseObject({ healthy: z.boolean(), version: z.string().optional() });
export type RuntimeHealth = z.infer<typeof runtimeHealthSchema>;

/**
 * One stored message of a session (`GET /session/:id/message`). Only the fields the relay reads are
 * named; the rest passes through untouched.
 */
export const messageInfoSchema = z.looseObject({
  id: z.string(),
  sessionID: z.string(),
  role: z.enum(['user', 'assistant']),
  agent: z.string().optional(),
  parentID: z.string().optional(),
  time: z.looseObject({ created: z.number(), completed: z.number().optional() }),
  finish: z.string().optional(),
  error: z.looseObject({ name: z.string(), data: z.unknown().optional() }).optional(),
});
export type MessageInfo = z.infer<typeof messageInfoSchema>;

/** A message part: text, tool call, step marker… `text` is set on text/reasoning parts. */
export const messagePartSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  sessionID: z.string().optional(),
  messageID: z.string().optional(),
  text: z.string().optional(),
});
export type MessagePart = z.infer<typeof messagePartSchema>;

export const sessionMessageSchema = z.object({ info: messageInfoSchema, parts: z.array(messagePartSchema) });
export type SessionMessage = z.infer<typeof sessionMessageSchema>;

/** One event from the runtime's `GET /event` stream: `{type, properties}`. */
export const runtimeEventSchema = z.looseObject({
  type: z.string(),
  properties: z.record(z.string(), z.unknown()).default({}),
});
export type RuntimeEvent = z.infer<typeof runtimeEventSchema>;

/**
 * Why a runtime call failed. `unreachable` and `server` are worth retrying later
 * (the alert is queued); `auth` and `client` are configuration or programming errors.
 */
export type AgentErrorKind = 'unreachable' | 'timeout' | 'auth' | 'server' | 'not_found' | 'client';

export class AgentRuntimeError extends Error {
  override readonly name = 'AgentRuntimeError';
  constructor(
    readonly kind: AgentErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
  get retryable(): boolean {
    return this.kind === 'unreachable' || this.kind === 'timeout' || this.kind === 'server';
  }
}

export interface PromptInput {
  /** Agent name. Send it on every prompt: without one opencode answers with its default agent, not the session's. */
  agent?: string;
  text: string;
  /** Adds the message to the session without starting a turn: what the relay shows the operator, not asks the model. */
  noReply?: boolean;
}

/** What the relay needs from the agent runtime. The real implementation is src/adapters/agent/client.ts. */
export interface AgentRuntime {
  readonly url: string;
  health(): Promise<RuntimeHealth>;
  createSession(input: { title: string }): Promise<Session>;
  /** Renames a session (what the operator's terminal lists it as). */
  renameSession(sessionId: string, title: string): Promise<void>;
  /** Removes a session and its messages. */
  deleteSession(sessionId: string): Promise<void>;
  promptAsync(sessionId: string, input: PromptInput): Promise<void>;
  getSession(sessionId: string): Promise<Session>;
  listSessions(): Promise<Session[]>;
  /** The session's messages in order, each with its parts. */
  getMessages(sessionId: string): Promise<SessionMessage[]>;
  /** Sessions that are not idle (busy or retrying), by id. */
  sessionStatus(): Promise<Record<string, { type: string }>>;
  abort(sessionId: string): Promise<void>;
  /**
   * The model a run of `agentName` would use as the runtime reports it (the agent's own
   * `model`, else the config's), as `provider/model`; null when none is configured, where
   * opencode would fall back to a hosted default the operator never chose.
   */
  configuredModel(agentName: string): Promise<string | null>;
  /**
   * Follows `GET /event` until `signal` aborts; reconnects with backoff and calls
   * `onStatus` on every connect/disconnect so health can show it.
   */
  followEvents(
    onEvent: (event: RuntimeEvent) => void,
    opts: { signal: AbortSignal; onStatus?: (status: { connected: boolean; error?: string }) => void },
  ): Promise<void>;
  close(): Promise<void>;
}

/** A runtime error as it may be shown: the client's messages never carry credentials. */
export function describeRuntimeError(error: unknown): string {
  if (error instanceof AgentRuntimeError) return `${error.kind}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
