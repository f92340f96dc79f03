import type { SendResult } from './types';

/**
 * A receiver's HTTP answer as an outbox `SendResult`: 2xx sent; 408, 425, 429 and 5xx tried again
 * (after `Retry-After` when given); any other 4xx refused for good with the receiver's reason.
 * `bodyText` is the receiver's own words; it is cut short and never holds what we sent.
 */
export function httpSendResult(status: number, headers: Record<string, string | string[] | undefined>, bodyText: string, now: Date = new Date()): SendResult {
  if (status >= 200 && status < 300) return { ok: true };
  const reason = `HTTP ${status}${bodyText ? `: ${oneLine(bodyText)}` : ''}`;
  const transient = status === 408 || status === 425 || status === 429 || status >= 500;
  if (!transient) return { ok: false, permanent: true, reason };
  const retryAfterMs = parseRetryAfter(headerValue(headers['retry-after']), now);
  return { ok: false, permanent: false, reason, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/** A failure to reach the receiver at all (refused, reset, timed out): always tried again. */
export function networkSendResult(error: unknown): SendResult {
  const e = error as { code?: string; message?: string };
  return { ok: false, permanent: false, reason: `not reached: ${e.code ?? oneLine(e.message ?? String(error))}` };
}

/** `Retry-After` in seconds or as an HTTP date, as milliseconds from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1_000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** Control characters out and at most 200 characters: a receiver's text goes into /health and the timeline. */
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 200);
