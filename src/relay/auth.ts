import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { OperatorDirectory } from '../core/operators/operators';
import { HttpError } from './errors';
import { UI_COOKIE, UI_LOGIN_PATH, readCookie, type Principal, type UiSession } from './ui-session';

const digest = (s: string) => createHash('sha256').update(s).digest();
const READ_METHODS = new Set(['GET', 'HEAD']);

/** The token of an `Authorization: Bearer …` header, if there is one. */
export const bearerOf = (request: FastifyRequest): string | undefined => /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];

const unauthorized = (secretName: string) =>
  new HttpError(401, 'unauthorized', `Missing or wrong bearer token: send Authorization: Bearer <${secretName}>.`, undefined, {
    'WWW-Authenticate': 'Bearer realm="fault-relay"',
  });

/**
 * The credential a request offers (the Authorization header, else the UI cookie, else a `/ui?token=`
 * login), if any. Only such requests count as failed authentication when refused: a browser that
 * has not logged in yet is not guessing anything.
 */
export function offeredCredential(request: FastifyRequest): string | undefined {
  return request.headers.authorization ?? readCookie(request.headers.cookie, UI_COOKIE) ?? loginToken(request);
}

/**
 * Whether the request offers a credential the relay accepts somewhere (a login token, else the
 * bearer, else the UI cookie: the order the guards decide by). Every secret is compared, in
 * constant time, whichever matches: the time taken says nothing about which one is right.
 */
export function knownCredential(opts: { secrets: ReadonlyArray<string | undefined>; operators?: OperatorDirectory | undefined; session?: UiSession | undefined }) {
  const expected = opts.secrets.filter((s): s is string => Boolean(s)).map(digest);
  const isSecret = (token: string) => {
    const given = digest(token);
    let found = false;
    for (const e of expected) if (timingSafeEqual(given, e)) found = true;
    return found;
  };
  return (request: FastifyRequest): boolean => {
    const login = loginToken(request);
    // Only looked at: a one-time sign-in link is spent by the route that signs in with it.
    if (login !== undefined) return opts.session?.knows(login) ?? false;
    if (request.headers.authorization !== undefined) {
      const token = bearerOf(request);
      if (token === undefined) return false;
      const secret = isSecret(token);
      const person = opts.operators?.byToken(token) !== undefined;
      return secret || person;
    }
    return opts.session?.fromCookie(request) !== undefined;
  };
}

/** The `?token=` of `GET /ui` (however its name is encoded); undefined on any other request. */
function loginToken(request: FastifyRequest): string | undefined {
  if (!READ_METHODS.has(request.method) || !request.url.includes('?')) return undefined;
  const url = new URL(request.url, 'http://relay.invalid');
  return url.pathname === UI_LOGIN_PATH ? (url.searchParams.get('token') ?? undefined) : undefined;
}

/**
 * Bearer check in constant time. Comparing digests keeps the comparison length-independent, so the
 * secret's length does not leak either. `session` and `readers` (the UI cookie, a person's own
 * token) open reads only (GET, HEAD): this guard never lets them change or start anything.
 */
export function bearerGuard(secret: string | undefined, secretName = 'WEBHOOK_SECRET', session?: UiSession, readers?: (token: string) => boolean) {
  const expected = secret ? digest(secret) : null;
  return async (request: FastifyRequest) => {
    if (!expected) return;
    const token = bearerOf(request);
    if (token !== undefined && timingSafeEqual(digest(token), expected)) return;
    const reading = READ_METHODS.has(request.method);
    // A wrong bearer is refused even beside a good cookie: the answer must not depend on the guess alone.
    if (token === undefined && reading && session?.accepts(request)) return;
    if (token !== undefined && reading && readers?.(token)) return;
    throw unauthorized(secretName);
  };
}

const principals = new WeakMap<FastifyRequest, Principal>();

/** Who the request was authenticated as by `principalGuard` (undefined when no secret is set). */
export const principalOf = (request: FastifyRequest): Principal | undefined => principals.get(request);

/** Whether this principal may create incidents or start runs: the shared secret or an approver. */
export const mayWrite = (p: Principal): boolean => p.kind === 'secret' || p.operator.role === 'approver';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A GET that creates or starts something: it needs a writer like any POST. */
    writes?: boolean;
  }
}

/**
 * The guard of the relay's own views and actions (`/sessions`, `/events`, `/ui`, `/headed` …):
 * the shared secret, a person's own token, or the UI cookie, in that order of evidence. An offered
 * `?token=` login or bearer decides alone, so a good cookie never hides a wrong guess. Reads are
 * open to every listed person; anything else (POST …, or a route with `config.writes`) only to the
 * shared secret and approvers: a viewer gets `403 not_an_approver`, as on the decision route.
 */
export function principalGuard(opts: { secret: string | undefined; session?: UiSession; operators?: OperatorDirectory }) {
  const expected = opts.secret ? digest(opts.secret) : null;
  const fromToken = (token: string): Principal | undefined => {
    if (expected && timingSafeEqual(digest(token), expected)) return { kind: 'secret' };
    const operator = opts.operators?.byToken(token);
    return operator ? { kind: 'operator', operator } : undefined;
  };
  return async (request: FastifyRequest) => {
    if (!expected) return;
    const login = loginToken(request);
    const bearer = bearerOf(request);
    const principal = login !== undefined ? opts.session?.login(login) : bearer !== undefined ? fromToken(bearer) : opts.session?.fromCookie(request);
    if (!principal) throw unauthorized('WEBHOOK_SECRET or your personal token');
    const writes = !READ_METHODS.has(request.method) || request.routeOptions.config?.writes === true;
    if (writes && !mayWrite(principal)) {
      const who = principal.kind === 'operator' ? principal.operator.email : 'this session';
      throw new HttpError(403, 'not_an_approver', `${who} is a viewer: only approvers (or WEBHOOK_SECRET) create incidents or start runs.`);
    }
    principals.set(request, principal);
  };
}
