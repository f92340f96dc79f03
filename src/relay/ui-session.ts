import { createHmac, timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../core/clock';
import type { Operator, OperatorDirectory } from '../core/operators/operators';
import type { SignInLinks } from './sign-in';

/** Cookie that stands in for the bearer in a browser: EventSource and page loads cannot send headers. */
export const UI_COOKIE = 'fault_relay_ui';
/** The one path that takes the bearer in its query, once, and trades it for the cookie. */
export const UI_LOGIN_PATH = '/ui';
/** Who a cookie made with WEBHOOK_SECRET speaks for (e-mails cannot take this form). */
export const SHARED_SECRET = 'shared-secret';

const DEFAULT_MAX_AGE_MS = 12 * 60 * 60 * 1000;
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Who a request speaks for: the relay's shared secret (Splunk's, scripts'), or a person from
 * OPERATORS_FILE as listed *now* (their role may have changed since they logged in).
 */
export type Principal = { kind: 'secret' } | { kind: 'operator'; operator: Operator };

export interface UiSession {
  /** Who a valid, unexpired cookie speaks for, looked up again; undefined for none, a forged one, or a person no longer listed. */
  fromCookie(request: FastifyRequest): Principal | undefined;
  /** Who a token offered at `/ui?token=` is: the shared secret, a listed person's own token, or an unused sign-in link (spent by this call). */
  login(token: string): Principal | undefined;
  /** For guards that only read: a cookie `fromCookie` accepts, or the `GET /ui?token=` login with a token `login` accepts. */
  accepts(request: FastifyRequest): boolean;
  /** Whether `login` would accept this token, without spending a sign-in link. */
  knows(token: string): boolean;
  /** A `Set-Cookie` header value for a new session of this principal. */
  issueCookie(principal: Principal, opts: { secure: boolean }): string;
}

const COOKIE_FORM = /^v2\.(\d{1,15})\.([A-Za-z0-9_-]{1,400})\.(secret|approver|viewer)\.([A-Za-z0-9_-]{43})$/;

/**
 * Browser sessions for the UI. The cookie names who and with which role, and its expiry, under an
 * HMAC keyed by WEBHOOK_SECRET; never a token. A person's cookie is also bound to their current
 * token hash, and the person is looked up in the operators directory on every request: removal,
 * a new token or a role change holds at once, not when the cookie expires. Without WEBHOOK_SECRET
 * (a laptop relay) the cookies are keyed by `key`, made at start: a restart ends every session.
 */
export function createUiSession(opts: { secret?: string; key?: string; clock: Clock; maxAgeMs?: number; operators?: OperatorDirectory; signIn?: SignInLinks }): UiSession {
  const { secret, clock, operators, signIn } = opts;
  const macKey = secret ?? opts.key;
  if (!macKey) throw new Error('a UI session needs WEBHOOK_SECRET or a key of its own');
  const maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const expected = secret ? digest(secret) : undefined;
  const mac = (expiry: string, who: string, role: string, tokenSha256: string) =>
    createHmac('sha256', macKey).update(`fault-relay-ui|v2|${expiry}|${who}|${role}|${tokenSha256}`).digest('base64url');

  const fromValue = (value: string | undefined): Principal | undefined => {
    const m = value ? COOKIE_FORM.exec(value) : null;
    if (!m) return undefined;
    const [, expiry, whoEncoded, role, given] = m as unknown as [string, string, string, string, string];
    if (Number(expiry) <= clock.now().getTime()) return undefined;
    const who = Buffer.from(whoEncoded, 'base64url').toString('utf8');
    let principal: Principal | undefined;
    let tokenSha256 = '';
    if (who === SHARED_SECRET) {
      if (role === 'secret') principal = { kind: 'secret' };
    } else {
      const operator = operators?.byEmail(who);
      if (operator) {
        principal = { kind: 'operator', operator };
        tokenSha256 = operator.token_sha256;
      }
    }
    const ok = timingSafeEqual(Buffer.from(given), Buffer.from(mac(expiry, who, role, tokenSha256)));
    return ok ? principal : undefined;
  };

  const login = (token: string): Principal | undefined => {
    if (expected && timingSafeEqual(digest(token), expected)) return { kind: 'secret' };
    const signedIn = signIn?.redeem(token);
    if (signedIn) return { kind: 'operator', operator: signedIn };
    const operator = operators?.byToken(token);
    return operator ? { kind: 'operator', operator } : undefined;
  };

  const knows = (token: string): boolean => {
    const secretMatch = expected !== undefined && timingSafeEqual(digest(token), expected);
    return secretMatch || Boolean(signIn?.holds(token)) || operators?.byToken(token) !== undefined;
  };

  return {
    knows,
    fromCookie: (request) => fromValue(readCookie(request.headers.cookie, UI_COOKIE)),
    accepts(request) {
      if (fromValue(readCookie(request.headers.cookie, UI_COOKIE))) return true;
      if (request.method !== 'GET' && request.method !== 'HEAD') return false;
      const url = new URL(request.url, 'http://relay.invalid');
      const token = url.searchParams.get('token');
      // Asked before the route: a sign-in link is only looked at here, and spent by the route's login.
      return url.pathname === UI_LOGIN_PATH && token !== null && knows(token);
    },
    login,
    issueCookie(principal, { secure }) {
      const expiry = String(clock.now().getTime() + maxAgeMs);
      const who = principal.kind === 'secret' ? SHARED_SECRET : principal.operator.email.toLowerCase();
      const role = principal.kind === 'secret' ? 'secret' : principal.operator.role;
      const tokenSha256 = principal.kind === 'secret' ? '' : principal.operator.token_sha256;
      const value = `v2.${expiry}.${Buffer.from(who).toString('base64url')}.${role}.${mac(expiry, who, role, tokenSha256)}`;
      const attrs = [`${UI_COOKIE}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${Math.floor(maxAgeMs / 1000)}`];
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
