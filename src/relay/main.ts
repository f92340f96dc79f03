/** `npm run relay`: the headless relay for servers, CI and local demos. */
import { resolve } from 'node:path';
import { userInfo } from 'node:os';
import { ConfigError } from '../config/load';
import { createLogger, secretsOf, syncStdout } from '../adapters/log/logger';
import { humanConsoleDestination, logFilePath } from '../adapters/log/console';
import { createSecretScrubber } from '../adapters/log/secret-scrubber';
import { startHeadlessRelay } from './start-headless';
import { otlpHeaderValues } from '../adapters/telemetry/settings';
import { startTelemetry } from '../adapters/telemetry/sdk';

// Secret values never reach a log line, whatever carries them; generated ones are added as they are made.
const scrubber = createSecretScrubber();
for (const { value, username } of secretsOf(process.env)) scrubber.add(value, { username });
// The collector's credentials (OTEL_EXPORTER_OTLP_HEADERS) are secrets like the relay's own.
for (const value of otlpHeaderValues(process.env)) scrubber.add(value);
// A person at a terminal reads human lines there, the JSON log goes to its file; a service manager or a pipe gets the JSON.
const consoleMode = process.env.RELAY_CONSOLE ?? 'auto';
const human = consoleMode === 'human' || (consoleMode === 'auto' && process.stdout.isTTY === true);
const logDir = resolve(process.env.RELAY_LOG_DIR || 'logs');
const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info', scrubber, destination: human ? humanConsoleDestination(logDir) : syncStdout() });

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'operator';
  }
}

try {
  // Before the relay: its first alert is traced when OTEL_* ask for traces; nothing is loaded otherwise.
  const telemetry = await startTelemetry(process.env);
  // A laptop relay (no team database) has a person at its terminal: they decide at /ui after one sign-in.
  const running = await startHeadlessRelay({ env: process.env, logger, scrubber, ...(process.env.DATABASE_URL ? {} : { localOperator: osUser() }) });
  if (running.signInLink) {
    if (human) {
      const link = running.signInLink();
      // Should the token ever reach a log line, it is taken out there.
      scrubber.add(new URL(link).searchParams.get('token') ?? undefined);
      // Straight to the terminal, never through the logger: the link is for this person's eyes only.
      process.stdout.write(
        `\nFault Relay is running. Its dashboard: ${new URL('/ui/', link).toString()}\n` +
          `Sign in as ${osUser()} (approver) with this link; it works once:\n\n  ${link}\n\n` +
          `The JSON log is in ${logFilePath(logDir)}.\n\n`,
      );
    } else {
      logger.info({ ui: new URL('/ui/', running.url).toString() }, 'no sign-in link printed: standard output is not a terminal (RELAY_CONSOLE=human prints it)');
    }
  }
  let exiting = false;
  const shutdown = async (signal: string) => {
    if (exiting) return;
    exiting = true;
    logger.info({ signal }, 'relay stopping');
    await running.stop();
    await telemetry.shutdown().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`fault-relay: ${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') {
    process.stderr.write(`fault-relay: the port is already in use: set INGEST_PORT to a free port\n`);
    process.exit(1);
  }
  logger.fatal({ err: error }, 'relay failed to start');
  process.exit(1);
}
