import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Bus } from '../events/bus';
import { entries } from '../events/timeline-entries';
import type { RelayEvents } from './events';
import { HEADED_PREFIX, incidentIdFor } from './ids';
import type { incidentIndexes } from './incident-indexes';
import type { IncidentTracer } from './incident-tracer';
import { NO_APPLICATION, publicIncident, type Incident, type Severity } from './model';
import type { NewIncident } from './service';
import type { IncidentStore } from './store';

/**
 * A new incident's record as stored, before its trace: queued for delivery, or running at once for a
 * headed run (run by an operator in the terminal UI), which is never folded into another run.
 */
export function newIncidentRecord(input: NewIncident, incident_id: string, at: string, severity: Severity | null): Incident {
  const kind = input.kind ?? 'relay';
  const { promptTextFor, kind: _kind, ...fields } = input;
  return {
    ...fields,
    field_sources: fields.field_sources ?? null,
    severity,
    progress: null,
    incident_id,
    kind,
    dedup_key: kind === 'headed' ? `headed:${incident_id}` : fields.dedup_key,
    session_id: null,
    state: kind === 'headed' ? 'running' : 'queued',
    created_at: at,
    updated_at: at,
    last_seen: at,
    occurrences: 1,
    approval_request: null,
    approval: null,
    application: NO_APPLICATION,
    change: null,
    outcome: null,
    prompt_text: promptTextFor(incident_id),
    delivery: { attempts: 0, next_attempt_at: null, last_error: null },
  };
}

interface CreatorDeps {
  store: IncidentStore;
  bus: Bus<RelayEvents>;
  clock: Clock;
  logger: Logger;
  severityFor?: (alertDefId: string, alertVars: Readonly<Record<string, string>>) => Severity | null;
  tracer: IncidentTracer;
  indexes: ReturnType<typeof incidentIndexes>;
  record: (incidentId: string, def: typeof entries.alertReceived, message: string, data: { warnings: string[] }) => unknown;
  tell: (incident: Incident, previous: Incident['state'] | undefined) => void;
}

/** Creates an incident: its id, its record and trace, its first timeline entry, stored and published. */
export function incidentCreator(deps: CreatorDeps) {
  const { store, bus, clock, logger, tracer, indexes, record, tell } = deps;
  return (input: NewIncident): Incident => {
    const now = clock.now();
    const kind = input.kind ?? 'relay';
    const incident_id = incidentIdFor(now, (id) => store.get(id) !== undefined || store.idTaken?.(id) === true, kind === 'headed' ? HEADED_PREFIX : undefined, store.idTag);
    const incident = newIncidentRecord(input, incident_id, now.toISOString(), deps.severityFor?.(input.alert_def_id, input.alert_vars) ?? null);
    // Under the request that brought the alert, and so under its sender's traceparent.
    const trace = tracer.open({ incident_id, device_hostname: incident.device_hostname, alert_def_id: incident.alert_def_id, kind });
    if (trace) incident.trace = trace;
    indexes.opened(incident);
    logger.info({ incident_id, alert_def_id: incident.alert_def_id, device: incident.device_hostname }, 'incident created');
    for (const w of incident.warnings) logger.warn({ incident_id }, `incident warning: ${w}`);
    record(
      incident_id,
      entries.alertReceived,
      kind === 'headed'
        ? `Headed run for ${incident.alert_def_id} on ${incident.device_hostname}: prompt copied for the terminal UI`
        : `Alert ${incident.alert_def_id} for ${incident.device_hostname} accepted`,
      { warnings: incident.warnings },
    );
    store.put(incident);
    tell(incident, undefined);
    bus.publish('incident.created', { incident: publicIncident(incident) });
    return incident;
  };
}
