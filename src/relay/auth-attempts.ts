import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../core/clock';
import { offeredCredential } from './auth';
import { HttpError } from './errors';

export interface AuthAttemptsOptions {
  clock: Clock;
  /** Failed authentications a source (or one wrong credential) may make per window; the next wrong one is answered 429. */
  maxFailures?: number;
  windowMs?: number;
  /** Keys remembered at once, per kind; beyond it the oldest is forgotten (a flood of addresses costs bounded memory). */
  maxSources?: number;
  /** Called once per source and window, when it reaches its allowance. */
  onLimited: (source: string, failures: number, windowSeconds: number) => void;
}

interface Window {
  start: number;
  failures: number;
}

/** Failures per key in fixed windows from the key's first failure, in bounded memory. */
function failureWindows(max: number, windowMs: number, maxKeys: number) {
  const windows = new Map<string, Window>();
  const live = (w: Window | undefined, t: number): w is Window => w !== undefined && t - w.start < windowMs;
  const makeRoom = (t: number) => {
    for (const [key, w] of windows) if (!live(w, t)) windows.delete(key);
    while (windows.size >= maxKeys) windows.delete(windows.keys().next().value as string);
  };
  return {
    retryAfter(key: string, t: number): number {
      const w = windows.get(key);
      if (!live(w, t) || w.failures < max) return 0;
      return Math.max(1, Math.ceil((w.start + windowMs - t) / 1000));
    },
    /** The key's failures in its window, this one included. */
    failed(key: string, t: number): number {
      let w = windows.get(key);
      if (!live(w, t)) {
        windows.delete(key);
        if (windows.size >= maxKeys) makeRoom(t);
        w = { start: t, failures: 0 };
        windows.set(key, w);
      }
      return ++w.failures;
    },
  };
}

/**
 * Failed authentications, counted per source address and per wrong credential. Only wrong
 * credentials are ever limited: a correct one is recognised first (in constant time) and always
 * goes on to its route, so a caller sharing an address (a NAT, Splunk's forwarder) with someone
 * guessing is never locked out. The limit costs a guesser the 429s (and the warning line) while
 * the relay's credentials are long random tokens, for which the guess itself is hopeless.
 */
export function createAuthAttempts(opts: AuthAttemptsOptions) {
  const max = opts.maxFailures ?? 10;
  const windowMs = opts.windowMs ?? 60_000;
  const bySource = failureWindows(max, windowMs, opts.maxSources ?? 10_000);
  const byCredential = failureWindows(max, windowMs, opts.maxSources ?? 10_000);
  const now = () => opts.clock.now().getTime();

  return {
    /** Seconds until this wrong credential from this source may be tried again; 0 when it may now. */
    retryAfter(source: string, credential: string): number {
      const t = now();
      return Math.max(bySource.retryAfter(source, t), byCredential.retryAfter(credential, t));
    },
    failed(source: string, credential: string): void {
      const t = now();
      byCredential.failed(credential, t);
      const failures = bySource.failed(source, t);
      if (failures === max) opts.onLimited(source, failures, Math.round(windowMs / 1000));
    },
  };
}

/** A wrong credential is remembered by a digest only: the guess itself is kept nowhere. */
const credentialKey = (credential: string) => createHash('sha256').update(credential).digest('base64url');

/**
 * Both ends on the whole app. Before any route's own check, an offered credential is looked at:
 * a correct one (`isKnown`: any credential the relay would accept somewhere) goes on untouched;
 * a wrong one over its source's or its own allowance is answered 429. Every 401 answered to a
 * wrong credential counts against its source and against it. `request.ip` is the client behind a
 * trusted proxy (RELAY_TRUSTED_PROXY), else the peer address.
 */
export function installAuthAttempts(app: FastifyInstance, attempts: ReturnType<typeof createAuthAttempts>, isKnown: (request: FastifyRequest) => boolean) {
  const wrong = new WeakMap<FastifyRequest, string>();
  app.addHook('onRequest', (request, _reply, done) => {
    const offered = offeredCredential(request);
    if (offered === undefined || isKnown(request)) return done();
    const key = credentialKey(offered);
    wrong.set(request, key);
    const wait = attempts.retryAfter(request.ip, key);
    if (wait === 0) return done();
    done(new HttpError(429, 'too_many_attempts', `Too many failed authentications from this address: try again in ${wait} s.`, undefined, { 'retry-after': String(wait) }));
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const key = wrong.get(request);
    if (reply.statusCode === 401 && key !== undefined) attempts.failed(request.ip, key);
    done(null, payload);
  });
}
