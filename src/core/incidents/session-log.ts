import { readdirSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Bus } from '../events/bus';
import type { RelayEvents } from './events';
import { isTerminal, type Incident } from './model';
import type { Incidents } from './service';
import type { Owns } from './ownership';
import { renderSessionLog } from './session-log-markdown';

export interface SessionLogWriterDeps {
  incidents: Pick<Incidents, 'get' | 'loadTimeline'>;
  bus: Bus<RelayEvents>;
  /** `RELAY_LOG_DIR`; logs go to `<logDir>/troubleshooting/`. */
  logDir: string;
  logger: Logger;
  /** Only the relay that owns an incident writes its log (a laptop owns all; src/core/incidents/ownership.ts). */
  owns: Owns;
}

export interface SessionLogWriter {
  /** After a restart: writes the logs of finished incidents that have none (a crash before the write). */
  backfill(incidents: Iterable<Incident>): void;
  /** Where the incident's log is (or will be) written. */
  pathFor(incident: Pick<Incident, 'incident_id' | 'created_at' | 'alert_def_id' | 'device_hostname'>): string;
  /** Resolves once every scheduled write is on disk. */
  flushed(): Promise<void>;
  /** Stops listening and waits for writes under way. */
  stop(): Promise<void>;
}

/** Backfilled logs written at once: the start's backlog never crowds out the logs of incidents ending now. */
const BACKFILL_AT_ONCE = 4;

const safe = (part: string) => part.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_').slice(0, 64) || '_';

/** `2026-11-21T10:00:00.000Z` → `20261121T100000Z`. */
const compactUtc = (iso: string) => new Date(iso).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');

/**
 * Writes `troubleshooting/<UTC>-<alert_def_id>-<device>.md` when an incident ends, and again when
 * anything is added after (the agent's last words, a late error). Built from the relay's own
 * record, so a run whose agent failed or never answered still leaves its log.
 */
export function createSessionLogWriter(deps: SessionLogWriterDeps): SessionLogWriter {
  const { incidents, bus, logger } = deps;
  const dir = join(deps.logDir, 'troubleshooting');
  /** Incidents with a write scheduled or under way; `again` when more happened meanwhile. */
  const writing = new Map<string, { again: boolean; done: Promise<void> }>();
  let seq = 0;

  function pathFor(incident: Pick<Incident, 'incident_id' | 'created_at' | 'alert_def_id' | 'device_hostname'>) {
    // Incidents of the same second carry -2, -3 … in their id; their logs must not overwrite each other.
    const suffix = /-(\d+)$/.exec(incident.incident_id.replace(/^INC-\d{8}T\d{6}Z/, ''))?.[0] ?? '';
    return join(dir, `${compactUtc(incident.created_at)}-${safe(incident.alert_def_id)}-${safe(incident.device_hostname)}${suffix}.md`);
  }

  async function write(incidentId: string) {
    const incident = incidents.get(incidentId);
    if (!incident) return;
    const target = pathFor(incident);
    const temp = `${target}.${process.pid}.${++seq}.tmp`;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(temp, renderSessionLog(incident, await incidents.loadTimeline(incidentId)), { mode: 0o600 });
      await rename(temp, target);
      logger.debug({ incident_id: incidentId, path: target }, 'session log written');
    } catch (error) {
      await rm(temp, { force: true }).catch(() => {});
      logger.error({ incident_id: incidentId, err: error }, 'session log could not be written');
    }
  }

  function schedule(incidentId: string) {
    // The relay that ran the incident writes its log; the others would write it a second time from hearsay.
    if (!deps.owns(incidentId)) return;
    const current = writing.get(incidentId);
    if (current) {
      current.again = true;
      return;
    }
    const job = { again: false, done: Promise.resolve() };
    job.done = (async () => {
      // A state change and its timeline entries arrive together: one write for all of them.
      await new Promise<void>((resolve) => setImmediate(resolve));
      do {
        job.again = false;
        await write(incidentId);
      } while (job.again);
      writing.delete(incidentId);
    })();
    writing.set(incidentId, job);
  }

  const ended = (incidentId: string) => {
    const incident = incidents.get(incidentId);
    return incident !== undefined && isTerminal(incident.state);
  };

  const offs = [
    bus.subscribe('incident.updated', ({ incident }) => {
      if (isTerminal(incident.state)) schedule(incident.incident_id);
    }),
    bus.subscribe('incident.timeline', ({ incident_id }) => {
      if (ended(incident_id)) schedule(incident_id);
    }),
  ];

  /** Logs a start found missing, written a few at a time after it (a lost folder can mean 100,000). */
  let missing: string[] = [];
  let backfilling: Promise<void> = Promise.resolve();
  const drain = async () => {
    const worker = async () => {
      for (let id = missing.shift(); id !== undefined; id = missing.shift()) await write(id);
    };
    await Promise.all(Array.from({ length: BACKFILL_AT_ONCE }, worker));
  };

  const flushed = async () => {
    await backfilling;
    while (writing.size > 0) await Promise.all([...writing.values()].map((j) => j.done));
  };

  return {
    pathFor,
    flushed,
    backfill(list) {
      // The folder read once: a stat per finished incident would cost a restart seconds with 100,000 of them.
      let written: Set<string>;
      try {
        written = new Set(readdirSync(dir).map((name) => join(dir, name)));
      } catch {
        written = new Set();
      }
      for (const incident of list) {
        if (isTerminal(incident.state) && deps.owns(incident.incident_id) && !written.has(pathFor(incident))) missing.push(incident.incident_id);
      }
      if (missing.length > 0) backfilling = drain();
    },
    async stop() {
      offs.forEach((off) => off());
      // What the backfill has not reached is still missing at the next start, which writes it then.
      missing = [];
      await flushed();
    },
  };
}
