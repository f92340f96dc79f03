import type { Logger } from 'pino';
import { z } from 'zod';
import { reportedAgentSchema, reportedConfigSchema, runtimeConfigShape, type RuntimeConfigShape } from './runtime-config';
import type { ProxySettings } from '../net/proxy';
import { jitteredBackoff, type BackoffPolicy } from '../../core/backoff';
import { systemClock, type Clock } from '../../core/clock';
import { runtimeHealthSchema, sessionMessageSchema, sessionSchema, type AgentRuntime, type RuntimeEndpoint } from '../../core/agent-runtime';
import { createRuntimeHttp } from './runtime-http';
import { createEventStream } from './runtime-event-stream';

/** The runtime client (kept as a name for callers that read sessions back). */
export type AgentClient = AgentRuntime & {
  /** The agents and configuration the runtime reports it runs with (for the runtime configuration check). */
  reportedConfig(): Promise<RuntimeConfigShape>;
};

export interface AgentClientTimeouts {
  /** TCP connect. */
  connectMs?: number;
  /** Until the response headers arrive. */
  headersMs?: number;
  /** Longest silence while reading a response body. */
  bodyMs?: number;
  /**
   * Until the event stream's headers arrive. Short: a healthy runtime answers at once, but one
   * that is still starting accepts connections it never serves (seen on opencode 1.18.33 for about
   * a second before its "listening" line), and a reconnect landing there must not wait long.
   */
  eventHeadersMs?: number;
  /**
   * Longest silence on the event stream before it counts as dead and is reopened. The runtime
   * sends a heartbeat every 10 s, so anything well above that only fires on a stuck connection.
   */
  eventIdleMs?: number;
}

export interface AgentClientOptions {
  timeouts?: AgentClientTimeouts;
  logger?: Logger;
  clock?: Clock;
  /** Delay before event-stream reconnect attempt n (0-based). */
  reconnectDelay?: BackoffPolicy;
  /** Keep-alive connections for API calls. */
  connections?: number;
  /** Proxy settings (HTTPS_PROXY …) for a runtime elsewhere; a loopback runtime is always reached directly. */
  proxy?: ProxySettings;
}

const defaults = { connectMs: 3_000, headersMs: 10_000, bodyMs: 30_000, eventHeadersMs: 3_000, eventIdleMs: 35_000 };

export function createAgentClient(endpoint: RuntimeEndpoint, opts: AgentClientOptions = {}): AgentClient {
  const timeouts = { ...defaults, ...opts.timeouts };
  const clock = opts.clock ?? systemClock;
  const reconnectDelay = opts.reconnectDelay ?? jitteredBackoff({ baseMs: 250, maxMs: 15_000 });
  const log = opts.logger;

  const http = createRuntimeHttp(endpoint, timeouts, opts);
  const { call } = http;
  const sessionPath = (id: string) => `/session/${encodeURIComponent(id)}`;

  return {
    url: endpoint.url,
    health: () => call('GET', '/global/health', { schema: runtimeHealthSchema }),
    createSession: ({ title }) => call('POST', '/session', { body: { title }, schema: sessionSchema }),
    async renameSession(id, title) {
      await call('PATCH', sessionPath(id), { body: { title }, schema: sessionSchema });
    },
    async deleteSession(id) {
      await call('DELETE', sessionPath(id), { schema: z.unknown() });
    },
    getSession: (id) => call('GET', sessionPath(id), { schema: sessionSchema }),
    listSessions: () => call('GET', '/session', { schema: z.array(sessionSchema) }),
    getMessages: (id) => call('GET', `${sessionPath(id)}/message`, { schema: z.array(sessionMessageSchema) }),
    sessionStatus: () => call('GET', '/session/status', { schema: z.record(z.string(), z.looseObject({ type: z.string() })) }),
    async promptAsync(id, { agent, text, noReply }) {
      await call('POST', `${sessionPath(id)}/prompt_async`, {
        body: { ...(agent ? { agent } : {}), ...(noReply ? { noReply: true } : {}), parts: [{ type: 'text', text }] },
      });
    },
    async configuredModel(agentName) {
      const agents = await call('GET', '/agent', {
        schema: z.array(z.looseObject({ name: z.string(), model: z.looseObject({ providerID: z.string(), modelID: z.string() }).optional() })),
      });
      const own = agents.find((a) => a.name === agentName)?.model;
      if (own) return `${own.providerID}/${own.modelID}`;
      const config = await call('GET', '/config', { schema: z.looseObject({ model: z.string().optional() }) });
      return config.model?.trim() ? config.model : null;
    },
    async abort(id) {
      await call('POST', `${sessionPath(id)}/abort`, { schema: z.unknown() });
    },
    async reportedConfig() {
      const [agents, config] = await Promise.all([call('GET', '/agent', { schema: z.array(reportedAgentSchema) }), call('GET', '/config', { schema: reportedConfigSchema })]);
      return runtimeConfigShape(agents, config);
    },

    followEvents: createEventStream({ http, url: endpoint.url, log, clock, reconnectDelay }),

    close: http.close,
  };
}
