import type { Logger } from 'pino';
import { reportedAgentSchema, reportedConfigSchema, runtimeConfigShape, type RuntimeConfigShape } from './runtime-config';
import { Pool, ProxyAgent, type Dispatcher } from 'undici';
import { proxyFor, type ProxySettings } from '../net/proxy';
import { z } from 'zod';
import { jitteredBackoff, wait, type BackoffPolicy } from '../../core/backoff';
import { systemClock, type Clock } from '../../core/clock';
import { createRedactor, statusError, transportError } from './runtime-errors';
import { createSseParser } from '../net/sse';
import {
  AgentRuntimeError,
  runtimeEventSchema,
  runtimeHealthSchema,
  sessionMessageSchema,
  sessionSchema,
  type AgentRuntime,
  type RuntimeEndpoint,
  type RuntimeEvent,
} from '../../core/agent-runtime';
import { errorText } from '../../core/error-body';

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

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface CallOptions<S extends z.ZodType | undefined> {
  body?: unknown;
  query?: Record<string, string>;
  schema?: S;
}

export function createAgentClient(endpoint: RuntimeEndpoint, opts: AgentClientOptions = {}): AgentClient {
  const timeouts = { ...defaults, ...opts.timeouts };
  const clock = opts.clock ?? systemClock;
  const reconnectDelay = opts.reconnectDelay ?? jitteredBackoff({ baseMs: 250, maxMs: 15_000 });
  const log = opts.logger;

  const base = new URL(endpoint.url);
  const basePath = base.pathname.replace(/\/+$/, '');
  const credentials = Buffer.from(`${endpoint.username}:${endpoint.password}`).toString('base64');
  const authorization = `Basic ${credentials}`;
  const redact = createRedactor([endpoint.password, credentials]);

  const through = opts.proxy ? proxyFor(base, opts.proxy) : undefined;
  // Through a proxy, requests name their origin; a pool is bound to one already.
  const origin = through ? { origin: base.origin } : {};
  const pool: Dispatcher = through
    ? new ProxyAgent({ uri: through, connections: opts.connections ?? 8, headersTimeout: timeouts.headersMs, bodyTimeout: timeouts.bodyMs })
    : new Pool(base.origin, {
        connections: opts.connections ?? 8,
        connectTimeout: timeouts.connectMs,
        headersTimeout: timeouts.headersMs,
        bodyTimeout: timeouts.bodyMs,
        keepAliveTimeout: 10_000,
      });
  // The event stream holds its connection for hours; it must not take a slot from API calls.
  const eventPool: Dispatcher = through
    ? new ProxyAgent({ uri: through, connections: 2, headersTimeout: timeouts.eventHeadersMs, bodyTimeout: timeouts.eventIdleMs })
    : new Pool(base.origin, {
        connections: 2,
        connectTimeout: timeouts.connectMs,
        headersTimeout: timeouts.eventHeadersMs,
        bodyTimeout: timeouts.eventIdleMs,
      });

  async function call<S extends z.ZodType | undefined = undefined>(
    method: Method,
    path: string,
    { body, query, schema }: CallOptions<S> = {},
  ): Promise<S extends z.ZodType ? z.infer<S> : void> {
    const what = `${method} ${path}`;
    let status: number;
    let text: string;
    try {
      const res = await pool.request({
        ...origin,
        method,
        path: basePath + path,
        query,
        headers: {
          authorization,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (error) {
      throw transportError(what, error, redact);
    }
    if (status >= 400) throw statusError(what, status, text, redact);
    if (!schema) return undefined as never;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new AgentRuntimeError('server', `agent runtime ${what}: answer is not JSON`, status);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new AgentRuntimeError(
        'server',
        redact(`agent runtime ${what}: unexpected answer: ${z.prettifyError(parsed.error)}`),
        status,
      );
    }
    return parsed.data as never;
  }

  const sessionPath = (id: string) => `/session/${encodeURIComponent(id)}`;

  /** One connection of the event stream; resolves when the server ends it. */
  async function streamOnce(
    onEvent: (event: RuntimeEvent) => void,
    signal: AbortSignal,
    onConnected: () => void,
  ): Promise<void> {
    const what = 'GET /event';
    let res;
    try {
      res = await eventPool.request({
        ...origin,
        method: 'GET',
        path: `${basePath}/event`,
        headers: { authorization, accept: 'text/event-stream' },
        signal,
      });
    } catch (error) {
      throw transportError(what, error, redact);
    }
    if (res.statusCode !== 200) {
      const text = await res.body.text().catch(() => '');
      throw statusError(what, res.statusCode, text, redact);
    }
    onConnected();
    const parser = createSseParser();
    try {
      for await (const chunk of res.body) {
        for (const { data } of parser.push(chunk as Buffer)) {
          // Nothing reaches the caller after it said stop, not even the rest of this chunk.
          if (signal.aborted) return;
          deliver(data, onEvent);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      throw transportError(what, error, redact);
    }
    throw new AgentRuntimeError('unreachable', 'agent runtime GET /event: stream ended by the runtime');
  }

  function deliver(data: string, onEvent: (event: RuntimeEvent) => void) {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      log?.warn({ data: data.slice(0, 200) }, 'agent runtime sent an event that is not JSON; skipped');
      return;
    }
    const parsed = runtimeEventSchema.safeParse(json);
    if (!parsed.success) {
      log?.warn({ issues: parsed.error.issues }, 'agent runtime sent an event of unknown shape; skipped');
      return;
    }
    try {
      onEvent(parsed.data);
    } catch (error) {
      // One bad handler must not cost the stream (and every later event) for everyone.
      log?.error({ err: error, type: parsed.data.type }, 'agent runtime event handler failed');
    }
  }

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

    async followEvents(onEvent, { signal, onStatus }) {
      let connected = false;
      let lastError: string | undefined;
      const report = (next: boolean, error?: string) => {
        if (next === connected && error === lastError) return;
        connected = next;
        lastError = error;
        try {
          onStatus?.(error === undefined ? { connected: next } : { connected: next, error });
        } catch (err) {
          log?.error({ err }, 'agent runtime status handler failed');
        }
      };
      let attempt = 0;
      while (!signal.aborted) {
        try {
          await streamOnce(onEvent, signal, () => {
            attempt = 0;
            report(true);
            log?.debug({ url: endpoint.url }, 'agent runtime event stream connected');
          });
        } catch (error) {
          if (signal.aborted) break;
          const message = errorText(error);
          report(false, message);
          const delay = reconnectDelay(attempt++);
          log?.debug({ delay_ms: delay, error: message }, 'agent runtime event stream down; reconnecting');
          await wait(delay, clock, signal);
        }
      }
      report(false);
    },

    async close() {
      await Promise.all([pool.close(), eventPool.destroy()]);
    },
  };
}
