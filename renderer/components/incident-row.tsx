import type { IncidentSummary } from '../bridge/contract';
import { formatAge, formatTimeLeft } from '../lib/format';
import { hrefFor } from '../lib/use-route';
import { StateBadge } from './state-badge';

export const ROW_HEIGHT = 52;

/** A separator only screen readers (and accessible names) see. */
const Sep = () => <span className="offscreen">, </span>;

export function IncidentRow(props: { incident: IncidentSummary; now: Date; selected: boolean; top: number; index: number }) {
  const { incident: i, now, selected, top, index } = props;
  const neighbor = i.alert_vars.neighbor_ip;
  const expires = i.state === 'awaiting_approval' ? i.approval_request?.expires_at : undefined;
  const left = expires ? formatTimeLeft(expires, now) : undefined;
  return (
    <a
      className={`incident-row${selected ? ' selected' : ''}`}
      href={hrefFor({ view: 'incidents', incidentId: i.incident_id })}
      aria-current={selected ? 'true' : undefined}
      data-incident-id={i.incident_id}
      data-index={index}
      style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}
    >
      {/* The link's name is its visible text; the hidden commas make it read as a sentence. */}
      <span className="col-state">
        <StateBadge state={i.state} />
        {left ? <span className="time-left small"><Sep />{left} left</span> : null}
      </span>
      <Sep />
      <span className="col-device">
        <span className="device">
          {i.device_hostname}
          {neighbor ? <span className="neighbor mono"> · {neighbor}</span> : null}
        </span>
        <Sep />
        <span className="mono dim small">
          {i.incident_id} · {i.alert_def_id}
        </span>
      </span>
      <Sep />
      <span className="col-sev">{i.severity ? <span className={`badge sev sev-${i.severity}`}>{i.severity}</span> : <span className="dim small">no severity</span>}</span>
      <Sep />
      <span className="col-age" title={i.created_at}>
        {formatAge(i.created_at, now)}
        <span className="offscreen"> old</span>
      </span>
      <Sep />
      <span className={`col-occ${i.occurrences > 1 ? ' repeated' : ''}`} title={`last seen ${i.last_seen}`}>
        ×{i.occurrences}
      </span>
    </a>
  );
}
