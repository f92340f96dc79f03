import pino, { type Logger } from 'pino';
import { splitUserinfo } from '../../config/load';
import { SECRET_KEYS } from '../../config/schema';
import { decodeFully, type SecretScrubber } from './secret-scrubber';

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

/**
 * A request URL as it may be logged: percent-escapes decoded first (so `?%74oken=` is `?token=`),
 * then credential-carrying query parameters and userinfo replaced. Secret values themselves are
 * taken out of every line by the logger's scrubber, whatever parameter carries them.
 */
export function redactUrl(url: string): string {
  const decoded = decodeFully(url);
  return decoded
    .replace(/([?&](?:token|auth_token|access_token|password|secret)=)[^&#]*/gi, '$1[redacted]')
    .replace(/\/\/[^/@\s]*@/g, '//[redacted]@');
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

/** The secret settings' values from an environment, for the scrubber (with the runtime user for basic auth). */
export function secretsOf(env: Record<string, string | undefined>): { value: string | undefined; username?: string }[] {
  const inUrl = env.AGENT_URL ? splitUserinfo(env.AGENT_URL) : undefined;
  const dbPassword = (() => {
    try {
      return env.DATABASE_URL ? decodeURIComponent(new URL(env.DATABASE_URL).password) : '';
    } catch {
      return '';
    }
  })();
  return [
    // The database password alone, as a driver error or a stack could carry it.
    ...(dbPassword ? [{ value: dbPassword }] : []),
    ...SECRET_KEYS.map((key) => ({ value: env[key], ...(key === 'AGENT_SERVER_PASSWORD' ? { username: env.AGENT_SERVER_USERNAME ?? inUrl?.username ?? 'opencode' } : {}) })),
    ...(inUrl?.password ? [{ value: inUrl.password, username: inUrl.username ?? 'opencode' }] : []),
  ];
}

/**
 * Standard output, written synchronously, as Node writes it for files and pipes: a line is out of the
 * process when the call returns, so a relay killed -9 or crashing still leaves its last lines, the
 * ones that explain it. Pino's default hands each line to the thread pool instead; on a loaded
 * two-core machine that round trip cost an alert's answer about 0.6 ms (npm run bench:intake).
 */
export const syncStdout = (): pino.DestinationStream => pino.destination({ fd: 1, sync: true });

export function createLogger(opts: { level: string; destination?: pino.DestinationStream; scrubber?: SecretScrubber }): Logger {
  const scrubber = opts.scrubber;
  return pino(
    {
      level: opts.level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { app: 'fault-relay' },
      serializers: { req: requestSerializer },
      // The last line of defence: whatever field or message a secret value ended up in.
      ...(scrubber ? { hooks: { streamWrite: (line: string) => scrubber.scrub(line) } } : {}),
    },
    opts.destination ?? syncStdout(),
  );
}
