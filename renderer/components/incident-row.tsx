import type { IncidentSummary } from '../bridge/contract';
import { formatAge } from '../lib/format';
import { hrefFor } from '../lib/use-route';
import { StateBadge } from './state-badge';

export const ROW_HEIGHT = 46;

export function IncidentRow(props: { incident: IncidentSummary; now: Date; selected: boolean; top: number }) {
  const { incident: i, now, selected, top } = props;
  return (
    <a
      className={`incident-row${selected ? ' selected' : ''}`}
      href={hrefFor({ view: 'incidents', incidentId: i.incident_id })}
      aria-current={selected ? 'true' : undefined}
      aria-label={`${i.incident_id} ${i.device_hostname} ${i.alert_def_id} ${i.state}`}
      data-incident-id={i.incident_id}
      style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}
    >
      <span className="col-state">
        <StateBadge state={i.state} />
      </span>
      <span className="col-device">
        <span className="device">{i.device_hostname}</span>
        <span className="mono dim small">{i.incident_id}</span>
      </span>
      <span className="col-alert mono">{i.alert_def_id}</span>
      <span className="col-age" title={i.created_at}>
        {formatAge(i.created_at, now)}
      </span>
      <span className={`col-occ${i.occurrences > 1 ? ' repeated' : ''}`} title={`last seen ${i.last_seen}`}>
        ×{i.occurrences}
      </span>
    </a>
  );
}
