/** `npm run relay`: the headless relay for servers, CI and local demos. */
import { ConfigError } from '../config/load';
import { createLogger, secretsOf } from '../log/logger';
import { createSecretScrubber } from '../log/secret-scrubber';
import { startHeadlessRelay } from './start-headless';

// Secret values never reach a log line, whatever carries them; generated ones are added as they are made.
const scrubber = createSecretScrubber();
for (const { value, username } of secretsOf(process.env)) scrubber.add(value, { username });
const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info', scrubber });

try {
  const running = await startHeadlessRelay({ env: process.env, logger, scrubber });
  let exiting = false;
  const shutdown = async (signal: string) => {
    if (exiting) return;
    exiting = true;
    logger.info({ signal }, 'relay stopping');
    await running.stop();
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
