import type { Logger } from 'pino';
import { wait, type BackoffPolicy } from '../../core/backoff';
import type { Clock } from '../../core/clock';
import { AgentRuntimeError, runtimeEventSchema, type AgentRuntime, type RuntimeEvent } from '../../core/agent-runtime';
import { errorText } from '../../core/error-body';
import { createSseParser } from '../net/sse';
import { statusError, transportError } from './runtime-errors';
import type { RuntimeHttp } from './runtime-http';

interface StreamDeps {
  http: RuntimeHttp;
  url: string;
  log: Logger | undefined;
  clock: Clock;
  /** Delay before reconnect attempt n (0-based). */
  reconnectDelay: BackoffPolicy;
}

/**
 * The runtime's event stream, followed until the signal says stop: reopened after every drop with
 * backoff, each event checked against its schema before it reaches the caller.
 */
export function createEventStream(deps: StreamDeps): AgentRuntime['followEvents'] {
  const { http, log, clock, reconnectDelay } = deps;
  const { eventPool, origin, basePath, authorization, redact } = http;
  const endpoint = { url: deps.url };

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

  return async function followEvents(onEvent, { signal, onStatus }) {
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
  };
}
