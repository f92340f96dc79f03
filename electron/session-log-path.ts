import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { createBus } from '../src/events/bus';
import type { RelayEvents } from '../src/incidents/events';
import type { Incident } from '../src/incidents/model';
import { createSessionLogWriter } from '../src/incidents/session-log';

/**
 * Where the relay writes an incident's session log. The relay owns its writer and does not
 * expose it, so its naming rule is borrowed from a writer on a silent bus: it never writes,
 * and the rule is never copied.
 */
export function sessionLogPathFor(logDir: string, logger: Logger): (incident: Incident) => string {
  const writer = createSessionLogWriter({ incidents: { get: () => undefined, timeline: () => [] }, bus: createBus<RelayEvents>(), logDir: resolve(logDir), logger });
  return (incident) => writer.pathFor(incident);
}
