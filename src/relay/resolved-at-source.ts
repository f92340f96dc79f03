import type { Logger } from 'pino';
import type { AgentRuntime } from '../core/agent-runtime';
import type { BatchAlert } from '../core/incidents/alert-source';
import type { Bus } from '../core/events/bus';
import type { RelayEvents } from '../core/incidents/events';
import { isTerminal, type Incident, type TimelineEntry } from '../core/incidents/model';
import type { Incidents } from '../core/incidents/service';
import type { Owns } from '../core/incidents/ownership';
import { entries, isEntry } from '../core/events/timeline-entries';
import { errorText } from '../core/error-body';

/** The timeline line of a sender saying the fault cleared, and the lines about telling the run. */
const { alertResolved: RESOLVED_AT_SOURCE, alertResolvedTold: RUN_TOLD, alertResolvedNotTold: RUN_NOT_TOLD } = entries;

const sameResolution = (entry: TimelineEntry, ref: unknown, resolvedAt: unknown) => entry.ref === ref && entry.resolved_at === resolvedAt;

/**
 * Records a resolved alert on its fault's open incident; returns that incident's id, or null when
 * none is open. Alertmanager sends a resolved alert again in later notifications of its group: the
 * same resolution (sender's ref and time) is one line.
 */
export function recordResolvedAtSource(incidents: Incidents, source: string, alert: BatchAlert): string | null {
  const open = incidents.findOpen(alert.dedup_key);
  if (!open) return null;
  const resolvedAt = alert.resolved_at ?? null;
  const timeline = incidents.timeline(open.incident_id);
  if (!timeline.some((e) => isEntry(e, RESOLVED_AT_SOURCE) && sameResolution(e, alert.ref, resolvedAt))) {
    const when = resolvedAt ? ` (${resolvedAt})` : '';
    incidents.record(open.incident_id, RESOLVED_AT_SOURCE, `Alert resolved at source: ${source} reports the fault cleared${when}`, { source, ref: alert.ref, resolved_at: resolvedAt });
  }
  return open.incident_id;
}

/** What the run reads: the fault went away by itself; the device's state still decides. */
export function resolvedNotice(incident: Incident, source: string, resolvedAt: string | null): string {
  const body = { incident_id: incident.incident_id, alert_def_id: incident.alert_def_id, device: incident.device_hostname, source, resolved_at: resolvedAt };
  return (
    'ALERT RESOLVED AT SOURCE: the alert sender reports this fault cleared by itself, and no change has been applied. ' +
    'Ask for or apply no change on the strength of the original alert: re-check the device read-only as the RAW does; if the fault is gone, ' +
    'report the outcome resolved (cleared by itself, nothing changed) and send the final notification; if the device still shows it, carry on as the RAW says.\n' +
    JSON.stringify(body, null, 2)
  );
}

/**
 * Tells a run that its fault cleared at the source, while it has sent no change (application
 * `none`): after a change the run's own revalidation is the judge. It follows the timeline rather
 * than the intake, so on a team relay the owner of the incident tells its own run, whichever relay
 * the sender reached. Returns the unsubscribe function.
 */
export function startResolvedNotices(deps: {
  bus: Bus<RelayEvents>;
  incidents: Incidents;
  agent: AgentRuntime;
  agentName: string;
  logger: Logger;
  /** Whether this relay owns the incident (only the owner talks to its run). */
  owns: Owns;
}): () => void {
  const { incidents, logger } = deps;
  return deps.bus.subscribe('incident.timeline', ({ incident_id: id, entry }) => {
    if (!isEntry(entry, RESOLVED_AT_SOURCE)) return;
    const incident = incidents.get(id);
    if (!incident || isTerminal(incident.state) || incident.kind !== 'relay' || !deps.owns(id)) return;
    const source = String(entry.source ?? 'the alert source');
    const resolvedAt = typeof entry.resolved_at === 'string' ? entry.resolved_at : null;
    // A timeline replayed (a restart, another relay's changes) must not tell the run twice.
    if (incidents.timeline(id).some((e) => (isEntry(e, RUN_TOLD) || isEntry(e, RUN_NOT_TOLD)) && sameResolution(e, entry.ref, entry.resolved_at))) return;
    const mark = { ref: entry.ref, resolved_at: entry.resolved_at };
    if (incident.application.status !== 'none') {
      incidents.record(id, RUN_NOT_TOLD, `The run is not told: a change was already sent to the device (${incident.application.status}); its revalidation decides`, mark);
      return;
    }
    if (!incident.session_id) {
      incidents.record(id, RUN_NOT_TOLD, 'The run has not started yet: it will find the device state itself', mark);
      return;
    }
    deps.agent.promptAsync(incident.session_id, { agent: deps.agentName, text: resolvedNotice(incident, source, resolvedAt) }).then(
      () => {
        incidents.record(id, RUN_TOLD, 'Run told the fault cleared by itself', mark);
        logger.info({ incident_id: id, source }, 'run told its fault cleared at the source');
      },
      (error: unknown) => {
        // Not retried: the run's own checks of the device find the fault gone as well.
        incidents.record(id, RUN_NOT_TOLD, `Could not tell the run the fault cleared (${errorText(error)})`, mark);
        logger.warn({ incident_id: id, err: error }, 'could not tell the run its fault cleared at the source');
      },
    );
  });
}
