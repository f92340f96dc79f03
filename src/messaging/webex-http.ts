import { request } from 'undici';
import type { z } from 'zod';
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

  /** The token was refused: retrying with it cannot help. */
  get isAuthFailure(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

export interface WebexHttp {
  /** JSON call with the bot token; `schema` checks the response body (not used for 204). */
  call<S extends z.ZodType>(method: string, url: string, schema: S, body?: unknown): Promise<z.infer<S>>;
  /** A call whose body is not needed (DELETE). */
  send(method: string, url: string, body?: unknown): Promise<void>;
}

const TIMEOUT_MS = 20_000;

export function createWebexHttp(token: string): WebexHttp {
  const redact = (text: string) => (token ? text.split(token).join('[redacted]') : text);

  async function exchange(method: string, url: string, body: unknown): Promise<{ status: number; json: unknown; text: string }> {
    const path = safePath(url);
    let res;
    try {
      res = await request(url, {
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
      throw new WebexApiError(
        redact(`Webex ${method} ${path} failed: HTTP ${res.statusCode}${detail ? `: ${detail}` : ''}${hint}`),
        method,
        path,
        res.statusCode,
        trackingId,
      );
    }
    return { status: res.statusCode, json, text };
  }

  return {
    async call(method, url, schema, body) {
      const { json } = await exchange(method, url, body);
      const parsed = schema.safeParse(json);
      if (!parsed.success) {
        const path = safePath(url);
        const fields = parsed.error.issues.map((i) => i.path.join('.') || '(body)').join(', ');
        throw new WebexApiError(`Webex ${method} ${path} returned an unexpected body (${fields})`, method, path, undefined);
      }
      return parsed.data;
    },
    async send(method, url, body) {
      await exchange(method, url, body);
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
