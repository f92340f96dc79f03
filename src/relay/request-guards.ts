import type { FastifyRequest } from 'fastify';
import { isLoopbackHost } from '../config/schema';
import { HttpError } from './errors';

/** The hostname (and port) of a Host header; IPv6 literals keep their brackets off. */
function splitHost(header: string): { host: string; port?: string } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(header) ?? /^([^:]+)(?::(\d+))?$/.exec(header);
  return m ? { host: (m[1] ?? '').toLowerCase(), ...(m[2] ? { port: m[2] } : {}) } : { host: header.toLowerCase() };
}

/** Whether a Host header names this relay: a loopback name, or one of `allowed` (`name` or `name:port`). */
export function hostMatcher(allowed: string[]) {
  const any = allowed.includes('*');
  // The same few Host values arrive again and again: remember the verdicts.
  const seen = new Map<string, boolean>();
  return (header: string | undefined): boolean => {
    if (any) return true;
    if (!header) return false;
    let ok = seen.get(header);
    if (ok === undefined) {
      const { host, port } = splitHost(header);
      ok = isLoopbackHost(host) || allowed.some((a) => a === host || (port !== undefined && a === `${host}:${port}`));
      if (seen.size < 1000) seen.set(header, ok);
    }
    return ok;
  };
}

/**
 * Both checks as one onRequest hook, before routing. The Host check comes first: a page on
 * another site that rebinds its DNS name to 127.0.0.1 still sends its own name as Host.
 */
export function requestGuard(allowed: string[], opts: { alwaysChecked: (path: string) => boolean }) {
  const hostAllowed = hostMatcher(allowed);
  const origin = originCheck(hostAllowed, opts);
  return (request: FastifyRequest, _reply: unknown, done: (error?: Error) => void) => {
    if (!request.headers.host) {
      return done(new HttpError(400, 'missing_host', 'The request has no Host header; send the relay\'s address as Host.'));
    }
    if (!hostAllowed(request.headers.host)) {
      return done(new HttpError(421, 'host_not_allowed', 'This relay does not serve that host name. Use its address, or add the name to RELAY_ALLOWED_HOSTS.'));
    }
    done(origin(request));
  };
}

/** Content types a browser may send cross-site without asking first (an HTML form). */
const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses state-changing and proxied requests that a page on another origin could have made:
 * an `Origin` the relay does not serve, `Sec-Fetch-Site` other than same-origin (or none, a typed
 * URL), or, to the proxy, a form content type without an `Authorization` header (which no
 * cross-site form can add). Splunk, opencode and scripts send no Origin and keep working.
 */
function originCheck(hostAllowed: (host: string) => boolean, opts: { alwaysChecked: (path: string) => boolean }) {
  return (request: FastifyRequest): HttpError | undefined => {
    const path = request.url.split('?')[0] ?? '';
    if (SAFE_METHODS.has(request.method) && !opts.alwaysChecked(path)) return undefined;
    const origin = request.headers.origin;
    if (origin !== undefined) {
      let ok = false;
      try {
        const u = new URL(origin);
        ok = (u.protocol === 'http:' || u.protocol === 'https:') && hostAllowed(u.host) && u.host.toLowerCase() === String(request.headers.host ?? '').toLowerCase();
      } catch {
        ok = false; // "null" and other opaque origins
      }
      if (!ok) return new HttpError(403, 'cross_origin_refused', 'Requests from another origin are refused.');
    }
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      return new HttpError(403, 'cross_origin_refused', 'Requests from another site are refused.');
    }
    // The relay's own routes take JSON only; the proxy forwards any body upstream with the relay's credential.
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (opts.alwaysChecked(path) && FORM_TYPES.has(type) && !request.headers.authorization) {
      return new HttpError(403, 'cross_origin_refused', `A ${type} body without an Authorization header could come from a form on another site; send JSON, or authenticate.`);
    }
    return undefined;
  };
}
