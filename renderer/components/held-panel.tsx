import type { IncidentSummary, IncidentDetail } from '../bridge/contract';
import { entries, isEntry } from '../../src/core/events/timeline-entries';

/** What a held request waits for: another incident's change on its device, or (a plan) a quarantined device's clear. */
export type HeldBehind =
  | { kind: 'change'; device: string; incident: string; change: string; message: string }
  | { kind: 'quarantine'; device: string; since: string; reason: string; message: string };

/** Why a held request is not asked yet: the newest `approval.held` not followed by the request's own progress. */
export function heldBehind(timeline: IncidentDetail['timeline']): HeldBehind | undefined {
  for (let i = timeline.length - 1; i >= 0; i--) {
    const e = timeline[i]!;
    if (isEntry(e, entries.approvalUnheld) || isEntry(e, entries.approvalRequested) || isEntry(e, entries.approvalQuarantined)) return undefined;
    if (!isEntry(e, entries.approvalHeld)) continue;
    const device = typeof e.device === 'string' ? e.device : '';
    if (typeof e.waiting_for_incident === 'string' && typeof e.waiting_for_change === 'string') {
      return { kind: 'change', device, incident: e.waiting_for_incident, change: e.waiting_for_change, message: e.message };
    }
    if (typeof e.quarantined_since === 'string' && typeof e.quarantine_reason === 'string') {
      return { kind: 'quarantine', device, since: e.quarantined_since, reason: e.quarantine_reason, message: e.message };
    }
  }
  return undefined;
}

/**
 * A request held while another incident's change is provisional on the same device (which incident
 * and which change it waits for), or a plan held while one of its devices is quarantined (which
 * device, since when, why). The relay asks (posts its card) when that change is over or the device
 * is cleared.
 */
export function HeldPanel({ incident, timeline }: { incident: IncidentSummary; timeline: IncidentDetail['timeline'] }) {
  const held = incident.state === 'running' ? heldBehind(timeline) : undefined;
  if (!held) return null;
  if (held.kind === 'quarantine') {
    return (
      <section className="panel held" aria-label="Waiting for a quarantined device">
        <p>
          <strong>Waiting</strong> for <span className="mono">{held.device}</span> to be cleared: quarantined since {held.since} ({held.reason}). This plan is asked on every channel once a
          person clears <span className="mono">{held.device}</span>; nothing is applied on any of its devices until then.
        </p>
      </section>
    );
  }
  return (
    <section className="panel held" aria-label="Waiting for another change">
      <p>
        <strong>Waiting</strong> for change <span className="mono">{held.change}</span> of <span className="mono">{held.incident}</span> on {held.device || incident.device_hostname}: this request is
        asked once that change is confirmed or rolled back.
      </p>
    </section>
  );
}
