import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { REDACT_PATHS, requestSerializer } from '../../src/adapters/log/logger';

/** A real pino logger (with the relay's redaction) whose lines the test can read. */
export function captureLogger(): { logger: Logger; lines: string[]; text(): string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: 'debug', redact: { paths: REDACT_PATHS, censor: '[redacted]' }, serializers: { req: requestSerializer } }, sink);
  return { logger, lines, text: () => lines.join('\n') };
}
