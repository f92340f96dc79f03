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

export function createLogger(opts: { level: string; destination?: pino.DestinationStream }): Logger {
  return pino({ level: opts.level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { app: 'fault-relay' } }, opts.destination);
}
