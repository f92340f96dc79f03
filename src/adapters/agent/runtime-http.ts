import { Pool, ProxyAgent, type Dispatcher } from 'undici';
import { z } from 'zod';
import { proxyFor } from '../net/proxy';
import { AgentRuntimeError, type RuntimeEndpoint } from '../../core/agent-runtime';
import { createRedactor, statusError, transportError } from './runtime-errors';
import type { AgentClientOptions, AgentClientTimeouts } from './client';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface CallOptions<S extends z.ZodType | undefined> {
  body?: unknown;
  query?: Record<string, string>;
  schema?: S;
}

/**
 * HTTP to the agent runtime: a pool for API calls and one for the event stream, each request
 * carrying the runtime's credentials, and every error text cleared of them.
 */
export function createRuntimeHttp(endpoint: RuntimeEndpoint, timeouts: Required<AgentClientTimeouts>, opts: Pick<AgentClientOptions, 'proxy' | 'connections'>) {
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

  /** A call answered as `schema` says, or an AgentRuntimeError. */
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

  return { call, eventPool, origin, basePath, authorization, redact, close: async () => void (await Promise.all([pool.close(), eventPool.destroy()])) };
}
export type RuntimeHttp = ReturnType<typeof createRuntimeHttp>;
