import pino, { type Logger } from 'pino';

/** Paths whose values never reach a log line, wherever they appear. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'password',
  '*.password',
  'token',
  '*.token',
  'AGENT_SERVER_PASSWORD',
  'WEBHOOK_SECRET',
  'MSG_BOT_TOKEN',
  'RELAY_TOOLS_TOKEN',
  'SEARCH_UPSTREAM_TOKEN',
  '*.AGENT_SERVER_PASSWORD',
  '*.WEBHOOK_SECRET',
  '*.MSG_BOT_TOKEN',
  '*.RELAY_TOOLS_TOKEN',
  '*.SEARCH_UPSTREAM_TOKEN',
];

/** Query parameters that carry a credential (the UI login's `?token=`). */
export function redactUrl(url: string): string {
  return /[?&](token|auth_token|access_token)=/i.test(url) ? url.replace(/([?&](?:token|auth_token|access_token)=)[^&#]*/gi, '$1[redacted]') : url;
}

interface RequestLike {
  method?: string;
  url?: string;
  host?: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * fastify logs every request URL before any hook runs, so a credential in the query
 * must be taken out by the serializer itself.
 */
export const requestSerializer = (req: RequestLike) => ({
  method: req.method,
  url: redactUrl(req.url ?? ''),
  host: req.host ?? req.hostname,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});

export function createLogger(opts: { level: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: opts.level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { app: 'fault-relay' },
      serializers: { req: requestSerializer },
    },
    opts.destination,
  );
}
