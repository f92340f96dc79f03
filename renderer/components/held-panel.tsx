import type { IncidentSummary, IncidentDetail } from '../bridge/contract';
import { heldBehind } from '../../src/core/approvals/held-view';

export { heldBehind };

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
