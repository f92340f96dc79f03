import type { FastifyPluginAsync } from 'fastify';
import { Agent, request as undiciRequest } from 'undici';
import { createProxyDispatchers, NO_PROXY_SETTINGS, type ProxySettings } from '../../adapters/net/proxy';
import { answersAndErrors } from '../../core/error-body';
import { bearerGuard } from '../auth';
import { HttpError } from '../errors';
import { checkedUpstreamPath } from './search-path';

export interface SearchProxyOptions {
  upstreamUrl?: string;
  upstreamToken?: string;
  timeoutMs: number;
  bodyLimit: number;
  webhookSecret?: string;
  proxy?: ProxySettings;
}

const PREFIX = '/search-platform';

// Hop-by-hop headers (RFC 9110 §7.6.1) plus the caller's own credentials: the
// upstream gets the relay's credential, never the caller's.
const DROP_REQUEST = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding',
  'upgrade', 'host', 'content-length', 'authorization', 'cookie', 'expect',
]);
const DROP_RESPONSE = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding',
  'upgrade', 'set-cookie', 'content-length',
]);

export const searchProxyRoutes: FastifyPluginAsync<SearchProxyOptions> = async (app, opts) => {
  const direct = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: opts.timeoutMs } });
  // A Splunk behind the corporate proxy is reached through it (HTTPS_PROXY …, NO_PROXY honoured).
  const proxies = createProxyDispatchers(opts.proxy ?? NO_PROXY_SETTINGS);
  const dispatcher = (opts.upstreamUrl ? proxies.for(opts.upstreamUrl) : undefined) ?? direct;
  app.addHook('onClose', async () => {
    await direct.close();
    await proxies.close();
  });
  app.addHook('onRequest', bearerGuard(opts.webhookSecret));

  // The proxy forwards bodies untouched, whatever their type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: opts.bodyLimit }, (_req, body, done) => done(null, body));

  const handler = async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    if (!opts.upstreamUrl) {
      throw new HttpError(503, 'proxy_not_configured', 'The search-platform proxy is off: set SEARCH_UPSTREAM_URL.');
    }
    const raw = request.raw.url ?? PREFIX;
    const q = raw.indexOf('?');
    const path = checkedUpstreamPath((q < 0 ? raw : raw.slice(0, q)).slice(PREFIX.length) || '/');
    const query = q < 0 ? '' : raw.slice(q);

    const base = new URL(opts.upstreamUrl);
    const target = `${base.origin}${base.pathname.replace(/\/$/, '')}${path.startsWith('/') ? path : `/${path}`}${query}`;

    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !DROP_REQUEST.has(name.toLowerCase())) headers[name] = value;
    }
    headers['x-forwarded-for'] = request.ip;
    if (opts.upstreamToken) headers.authorization = `Bearer ${opts.upstreamToken}`;

    const body = Buffer.isBuffer(request.body) && request.body.length > 0 ? request.body : undefined;
    let upstream: Awaited<ReturnType<typeof undiciRequest>>;
    try {
      upstream = await undiciRequest(target, {
        method: request.method as 'GET',
        headers,
        body,
        dispatcher,
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (/TIMEOUT/.test(code)) throw new HttpError(504, 'upstream_timeout', 'The search platform did not answer in time.');
      throw new HttpError(502, 'upstream_unreachable', `The search platform could not be reached${code ? ` (${code})` : ''}.`);
    }
    reply.code(upstream.statusCode);
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value !== undefined && !DROP_RESPONSE.has(name.toLowerCase())) reply.header(name, value);
    }
    return reply.send(upstream.body);
  };

  // The relay's own refusals are the error body; the upstream's answers (any status) pass as a stream, unchanged.
  app.all(PREFIX, { schema: { response: answersAndErrors } }, handler);
  app.all(`${PREFIX}/*`, { schema: { response: answersAndErrors } }, handler);
};
