import { request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { jitteredBackoff } from '../../../core/backoff';
import { systemClock, type Clock } from '../../../core/clock';
import { apiErrorBodySchema } from './schemas';

/**
 * A failed Webex HTTP call. The message names the call and the status, never a header:
 * the bearer token must not reach logs, health output or the UI.
 */
export class WebexApiError extends Error {
  override readonly name = 'WebexApiError';
  constructor(
    message: string,
    readonly method: string,
    readonly path: string,
    /** HTTP status, or undefined when the service could not be reached. */
    readonly status: number | undefined,
    readonly trackingId?: string,
  ) {
    super(message);
  }

  /** What a 429's Retry-After asked for. */
  retryAfterMs: number | undefined;

  /** The token was refused: retrying with it cannot help. */
  get isAuthFailure(): boolean {
    return (this.status === 401 || this.status === 403) && !this.isExcessiveDevices;
  }

  /** WDM's answer when the bot has too many device registrations: delete old ones, not a bad token. */
  get isExcessiveDevices(): boolean {
    return this.status === 403 && /excessive device registrations/i.test(this.message);
  }
}

export interface CallOptions {
  /**
   * Retries after a 5xx or an unreachable service: 0 for calls whose caller has a better answer
   * than waiting (a fallback). A 429 is always waited out as Webex asks, up to the client's bound.
   */
  retries?: number;
}

export interface WebexHttpOptions {
  clock?: Clock;
  /** Retries after a 429, a 5xx or an unreachable service, before the error is thrown. */
  maxRetries?: number;
  random?: () => number;
  /** Longest Retry-After the relay will honour in one wait. */
  maxRetryAfterMs?: number;
  /** A proxy's dispatcher for a URL (HTTPS_PROXY …), or undefined to connect directly. */
  dispatcherFor?: (url: string) => Dispatcher | undefined;
}

/** `Retry-After` as milliseconds: seconds, or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface WebexHttp {
  /** JSON call with the bot token; `schema` checks the response body (not used for 204). */
  call<S extends z.ZodType>(method: string, url: string, schema: S, body?: unknown, opts?: CallOptions): Promise<z.infer<S>>;
  /** A call whose body is not needed (DELETE). */
  send(method: string, url: string, body?: unknown, opts?: CallOptions): Promise<void>;
}

const TIMEOUT_MS = 20_000;

export function createWebexHttp(token: string, opts: WebexHttpOptions = {}): WebexHttp {
  const redact = (text: string) => (token ? text.split(token).join('[redacted]') : text);
  const clock = opts.clock ?? systemClock;
  const maxRetries = opts.maxRetries ?? 5;
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? 120_000;
  const backoff = jitteredBackoff({ baseMs: 500, maxMs: 15_000, random: opts.random });

  /**
   * Webex throttles with 429 + Retry-After and has passing 5xx: both are waited out (the wait
   * Webex asks for, else the shared backoff), a bounded number of times. A refusal (4xx) is not.
   */
  async function exchange(method: string, url: string, body: unknown, callOpts: CallOptions = {}): Promise<{ status: number; json: unknown; text: string }> {
    const outageBound = callOpts.retries ?? maxRetries;
    for (let attempt = 0; ; attempt++) {
      try {
        return await exchangeOnce(method, url, body);
      } catch (error) {
        if (!(error instanceof WebexApiError) || attempt >= maxRetries) throw error;
        const throttled = error.status === 429;
        const outage = error.status === undefined || error.status >= 500;
        if (!throttled && !(outage && attempt < outageBound)) throw error;
        const asked = error.status === 429 ? error.retryAfterMs : undefined;
        const delay = asked !== undefined ? Math.min(asked, maxRetryAfterMs) : backoff(attempt);
        await new Promise<void>((resolve) => clock.setTimeout(resolve, delay));
      }
    }
  }

  async function exchangeOnce(method: string, url: string, body: unknown): Promise<{ status: number; json: unknown; text: string }> {
    const path = safePath(url);
    let res;
    try {
      const dispatcher = opts.dispatcherFor?.(url);
      res = await request(url, {
        ...(dispatcher ? { dispatcher } : {}),
        method: method as 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
    } catch (error) {
      const why = error instanceof Error ? ((error as { code?: string }).code ?? error.message) : String(error);
      throw new WebexApiError(redact(`Webex ${method} ${path} unreachable: ${why}`), method, path, undefined);
    }
    const text = await res.body.text();
    let json: unknown = undefined;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    if (res.statusCode >= 400) {
      const parsed = apiErrorBodySchema.safeParse(json);
      const detail = parsed.success ? parsed.data.message : undefined;
      const trackingId = (parsed.success ? parsed.data.trackingId : undefined) ?? header(res.headers['trackingid']);
      const hint = res.statusCode === 401 ? ' (the bot token was refused; check MSG_BOT_TOKEN)' : '';
      const failure = new WebexApiError(
        redact(`Webex ${method} ${path} failed: HTTP ${res.statusCode}${detail ? `: ${detail}` : ''}${hint}`),
        method,
        path,
        res.statusCode,
        trackingId,
      );
      failure.retryAfterMs = retryAfterMs(header(res.headers['retry-after']), clock.now().getTime());
      throw failure;
    }
    return { status: res.statusCode, json, text };
  }

  return {
    async call(method, url, schema, body, callOpts) {
      const { json } = await exchange(method, url, body, callOpts);
      const parsed = schema.safeParse(json);
      if (!parsed.success) {
        const path = safePath(url);
        const fields = parsed.error.issues.map((i) => i.path.join('.') || '(body)').join(', ');
        throw new WebexApiError(`Webex ${method} ${path} returned an unexpected body (${fields})`, method, path, undefined);
      }
      return parsed.data;
    },
    async send(method, url, body, callOpts) {
      await exchange(method, url, body, callOpts);
    },
  };
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '(invalid url)';
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
