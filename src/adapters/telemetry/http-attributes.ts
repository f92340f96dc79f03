import type { Attributes, Span } from '@opentelemetry/api';
import type { FastifyRequest } from 'fastify';

/**
 * What the HTTP instrumentations may record. A URL's query can carry a credential (the one-time
 * sign-in link's token, an API's key): its names are kept, its values never; user info in a URL
 * is dropped. Headers are never recorded (neither instrumentation is told any to record).
 */
export function redactedQuery(search: string): string {
  if (search === '' || search === '?') return '';
  const names = [...new URLSearchParams(search).keys()];
  return `?${names.map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&')}`;
}

/** The request's path as received, with its query's values redacted. */
export function safeRequestPath(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : `${url.slice(0, at)}${redactedQuery(url.slice(at))}`;
}

/** Routes whose own spans would be noise: health polls, metrics scrapes, the UI's files and live stream, and the agents' MCP transport (each tool call has its own span under its incident). */
const UNTRACED = /^\/(health|metrics|events|ui|mcp|device-mcp)(\/|\?|$)/;

export const fastifyTracingOptions = {
  ignorePaths: (route: { url: string }) => UNTRACED.test(route.url),
  requestHook: (span: Span, request: FastifyRequest) => {
    span.setAttribute('url.path', safeRequestPath(request.url));
  },
};

export const undiciTracingOptions = {
  // Only calls made for an incident (or a traced request) get spans: the runtime's event stream and polls do not.
  requireParentforSpans: true,
  startSpanHook: (request: { origin: string; path: string }): Attributes => {
    let url: URL;
    try {
      url = new URL(request.path, request.origin);
    } catch {
      return {};
    }
    const query = redactedQuery(url.search);
    return { 'url.full': `${url.protocol}//${url.host}${url.pathname}${query}`, 'url.query': query };
  },
};
