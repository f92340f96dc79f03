import type { IncidentSummary, IncidentDetail } from '../bridge/contract';
import { entries, isEntry } from '../../src/core/events/timeline-entries';

/** Why a held request is not asked yet: the newest `approval.held` not followed by the request's own progress. */
export function heldBehind(timeline: IncidentDetail['timeline']): { incident: string; change: string; message: string } | undefined {
  for (let i = timeline.length - 1; i >= 0; i--) {
    const e = timeline[i]!;
    if (isEntry(e, entries.approvalUnheld) || isEntry(e, entries.approvalRequested) || isEntry(e, entries.approvalQuarantined)) return undefined;
    if (isEntry(e, entries.approvalHeld) && typeof e.waiting_for_incident === 'string' && typeof e.waiting_for_change === 'string') {
      return { incident: e.waiting_for_incident, change: e.waiting_for_change, message: e.message };
    }
  }
  return undefined;
}

/**
 * A request held while another incident's change is provisional on the same device: which incident
 * and which change it waits for. The relay asks (posts its card) when that change is over.
 */
export function HeldPanel({ incident, timeline }: { incident: IncidentSummary; timeline: IncidentDetail['timeline'] }) {
  const held = incident.state === 'running' ? heldBehind(timeline) : undefined;
  if (!held) return null;
  return (
    <section className="panel held" aria-label="Waiting for another change">
      <p>
        <strong>Waiting</strong> for change <span className="mono">{held.change}</span> of <span className="mono">{held.incident}</span> on {incident.device_hostname}: this request is asked once that change is
        confirmed or rolled back.
      </p>
    </section>
  );
}
