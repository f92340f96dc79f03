import { createHmac, timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock';

/** Cookie that stands in for the bearer in a browser: EventSource and page loads cannot send headers. */
export const UI_COOKIE = 'fault_relay_ui';
/** The one path that takes the bearer in its query, once, and trades it for the cookie. */
export const UI_LOGIN_PATH = '/ui';

const DEFAULT_MAX_AGE_MS = 12 * 60 * 60 * 1000;
const digest = (s: string) => createHash('sha256').update(s).digest();

export interface UiSession {
  /**
   * For the bearer guard: true when the request carries a valid, unexpired UI cookie, or is the
   * `GET /ui?token=<secret>` login with the right secret (the route then sets the cookie).
   */
  accepts(request: FastifyRequest): boolean;
  /** Constant-time check of a secret offered in `?token=`. */
  tokenMatches(token: string): boolean;
  /** A `Set-Cookie` header value for a new session. */
  issueCookie(opts: { secure: boolean }): string;
}

/**
 * Browser sessions for the read-only UI. The cookie holds an expiry and an HMAC of it keyed by
 * the secret, never the secret itself: it dies with its expiry or when WEBHOOK_SECRET changes.
 */
export function createUiSession(opts: { secret: string; clock: Clock; maxAgeMs?: number; readers?: (token: string) => boolean }): UiSession {
  const { secret, clock } = opts;
  const maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const expected = digest(secret);
  const mac = (expiry: string) => createHmac('sha256', secret).update(`fault-relay-ui|${expiry}`).digest('base64url');

  const cookieValid = (value: string | undefined): boolean => {
    const m = value ? /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
    if (!m) return false;
    const [, expiry, given] = m as unknown as [string, string, string];
    if (Number(expiry) <= clock.now().getTime()) return false;
    return timingSafeEqual(Buffer.from(given), Buffer.from(mac(expiry)));
  };
  // The shared secret, or a person's own token (the UI is read-only either way).
  const tokenMatches = (token: string) => timingSafeEqual(digest(token), expected) || Boolean(opts.readers?.(token));

  return {
    tokenMatches,
    accepts(request) {
      if (cookieValid(readCookie(request.headers.cookie, UI_COOKIE))) return true;
      if (request.method !== 'GET' && request.method !== 'HEAD') return false;
      const url = new URL(request.url, 'http://relay.invalid');
      const token = url.searchParams.get('token');
      return url.pathname === UI_LOGIN_PATH && token !== null && tokenMatches(token);
    },
    issueCookie({ secure }) {
      const expiry = String(clock.now().getTime() + maxAgeMs);
      const attrs = [`${UI_COOKIE}=v1.${expiry}.${mac(expiry)}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${Math.floor(maxAgeMs / 1000)}`];
      if (secure) attrs.push('Secure');
      return attrs.join('; ');
    },
  };
}

/** One cookie's value from a Cookie header; malformed pairs are skipped. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    if (pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}
