import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: '', 40: 'warning', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, or that say nothing to a person at the terminal. */
const QUIET = new Set(['level', 'time', 'pid', 'hostname', 'app', 'msg', 'component', 'req', 'res', 'reqId', 'responseTime']);
/** fastify's line per request: the JSON log keeps them, the terminal does not. */
const REQUEST_LINES = new Set(['incoming request', 'request completed']);

/** A flat value as `key=value`; a nested one only by its message (an error) or not at all. */
function shown(key: string, value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return `${key}=${String(value)}`;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return `${key}=${value.join(',')}`;
  const message = (value as { message?: unknown }).message;
  return typeof message === 'string' ? `${key}=${message}` : undefined;
}

/**
 * One JSON log line as a person reads it on a terminal: the time, the level when it is not info,
 * what happened, and its flat facts. Undefined for a request line or anything not JSON.
 */
export function humanLine(json: string): string | undefined {
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (REQUEST_LINES.has(String(line.msg))) return undefined;
  const at = typeof line.time === 'number' ? new Date(line.time).toISOString().slice(11, 19) : '';
  const level = LEVELS[Number(line.level)] ?? '';
  const facts = Object.entries(line)
    .filter(([k]) => !QUIET.has(k))
    .map(([k, v]) => shown(k, v))
    .filter((f): f is string => f !== undefined);
  // Control characters from a field (an alert value, a device line) never move the cursor or colour the terminal.
  const text = [at, level ? `${level}:` : '', String(line.msg ?? ''), ...facts].filter(Boolean).join('  ');
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/** The relay's log file when the terminal gets human lines: `<RELAY_LOG_DIR>/relay.log`, JSON, appended. */
export function logFilePath(logDir: string): string {
  return join(logDir, 'relay.log');
}

/**
 * Where the relay's log goes when a person watches its terminal: every JSON line to the log file,
 * and a readable line for each to standard output (written synchronously, as `syncStdout` is).
 */
export function humanConsoleDestination(logDir: string): pino.DestinationStream {
  mkdirSync(logDir, { recursive: true });
  const file = pino.destination({ dest: logFilePath(logDir), sync: true, append: true, mkdir: true });
  const out = pino.destination({ fd: 1, sync: true });
  return {
    write(chunk: string) {
      file.write(chunk);
      const human = humanLine(chunk);
      if (human) out.write(`${human}\n`);
    },
  };
}
