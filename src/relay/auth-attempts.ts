import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock';
import { offersCredential } from './auth';
import { HttpError } from './errors';

export interface AuthAttemptsOptions {
  clock: Clock;
  /** Failed authentications a source may make per window; the next attempt is answered 429. */
  maxFailures?: number;
  windowMs?: number;
  /** Sources remembered at once; beyond it the oldest is forgotten (a flood of addresses costs bounded memory). */
  maxSources?: number;
  /** Called once per source and window, when it reaches its allowance. */
  onLimited: (source: string, failures: number, windowSeconds: number) => void;
}

interface Window {
  start: number;
  failures: number;
}

/**
 * Failed authentications per source address, in fixed windows from a source's first failure.
 * Guessing a token then costs a minute per ten tries instead of a thousand tries a second; other
 * sources, and the same source after its window, are not affected.
 */
export function createAuthAttempts(opts: AuthAttemptsOptions) {
  const max = opts.maxFailures ?? 10;
  const windowMs = opts.windowMs ?? 60_000;
  const maxSources = opts.maxSources ?? 10_000;
  const windows = new Map<string, Window>();
  const now = () => opts.clock.now().getTime();
  const live = (w: Window | undefined, t: number): w is Window => w !== undefined && t - w.start < windowMs;

  const makeRoom = (t: number) => {
    for (const [source, w] of windows) if (!live(w, t)) windows.delete(source);
    while (windows.size >= maxSources) windows.delete(windows.keys().next().value as string);
  };

  return {
    /** Seconds until this source may try again; 0 when it may now. */
    retryAfter(source: string): number {
      const t = now();
      const w = windows.get(source);
      if (!live(w, t) || w.failures < max) return 0;
      return Math.max(1, Math.ceil((w.start + windowMs - t) / 1000));
    },
    failed(source: string): void {
      const t = now();
      let w = windows.get(source);
      if (!live(w, t)) {
        windows.delete(source);
        if (windows.size >= maxSources) makeRoom(t);
        w = { start: t, failures: 0 };
        windows.set(source, w);
      }
      w.failures += 1;
      if (w.failures === max) opts.onLimited(source, w.failures, Math.round(windowMs / 1000));
    },
  };
}

/**
 * Both ends on the whole app: before any route's own check, a source over its allowance that offers
 * a credential is answered 429 (its guess is not even looked at, so a right one is no better than a
 * wrong one); every 401 answered to a request that offered a credential counts against its source.
 * `request.ip` is the client behind a trusted proxy (RELAY_TRUSTED_PROXY), else the peer address.
 */
export function installAuthAttempts(app: FastifyInstance, attempts: ReturnType<typeof createAuthAttempts>) {
  app.addHook('onRequest', (request, _reply, done) => {
    if (!offersCredential(request)) return done();
    const wait = attempts.retryAfter(request.ip);
    if (wait === 0) return done();
    done(new HttpError(429, 'too_many_attempts', `Too many failed authentications from this address: try again in ${wait} s.`, undefined, { 'retry-after': String(wait) }));
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 401 && offersCredential(request)) attempts.failed(request.ip);
    done(null, payload);
  });
}
