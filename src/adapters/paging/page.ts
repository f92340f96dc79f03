import { REQUEST_ID_PATTERN } from '../../core/approvals/request-id';
import type { Incident, Severity } from '../../core/incidents/model';

export const PAGERS = ['pagerduty', 'opsgenie'] as const;
export type PagerName = (typeof PAGERS)[number];
export const PAGER_LABELS: Record<PagerName | 'remind', string> = { pagerduty: 'PagerDuty', opsgenie: 'Opsgenie', remind: 'the operator channels' };

/** Why a page goes out: a step of the chain (its index), or something that pages at once. */
export type PageStep = number | 'escalated' | 'failed' | 'rollback' | 'quarantined' | 'acknowledge' | 'resolve';

/**
 * One page as the outbox keeps it: everything the pager's API needs but its credentials (added
 * when it is sent), so nothing secret is ever stored or shown. Every text is the relay's own
 * words; alert values are in it only after their format was checked.
 */
export interface Page {
  pager: PagerName;
  action: 'trigger' | 'acknowledge' | 'resolve';
  incident_id: string;
  step: PageStep;
  summary: string;
  severity: Severity | null;
  device: string;
  alert_def_id: string;
  lines_sha256: string;
  request_id: string;
  to: string;
  links: { ui: string; evidence: string };
  /** Acknowledge: who; resolve: the run's outcome in the relay's words. */
  note: string;
}

const HOSTNAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const ALERT_DEF = /^[A-Z]{2}\d{6}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const INCIDENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** An alert value for a page, only when it has the format it is declared to have. */
export const checked = (value: string | undefined, format: RegExp, unknown = '(not shown: unexpected format)') => (value && format.test(value) ? value : unknown);

/** The incident's device name as the relay shows it in its own words. */
export const shownDevice = (incident: Pick<Incident, 'device_hostname'>) => checked(incident.device_hostname, HOSTNAME);

export function pageLinks(publicUrl: string, incidentId: string) {
  const base = publicUrl.replace(/\/+$/, '');
  const id = encodeURIComponent(incidentId);
  return { ui: `${base}/ui/#/incidents/${id}`, evidence: `${base}/incidents/${id}/evidence` };
}

/** The facts of a page about `incident`, for `pager`, in the relay's own words. */
export function pageFor(incident: Incident, pager: PagerName, step: PageStep, why: string, opts: { publicUrl: string; to?: string; action?: Page['action']; note?: string }): Page {
  const request = incident.approval_request;
  const device = checked(incident.device_hostname, HOSTNAME);
  const incidentId = checked(incident.incident_id, INCIDENT_ID);
  return {
    pager,
    action: opts.action ?? 'trigger',
    incident_id: incident.incident_id,
    step,
    summary: `Fault Relay ${incidentId}: ${why} (device ${device})`.slice(0, 1024),
    severity: incident.severity,
    device,
    alert_def_id: checked(incident.alert_def_id, ALERT_DEF),
    lines_sha256: checked(request?.lines_sha256, HEX64, ''),
    request_id: checked(request?.request_id, REQUEST_ID_PATTERN, ''),
    to: opts.to ?? '',
    links: pageLinks(opts.publicUrl, incident.incident_id),
    note: opts.note ?? '',
  };
}

/** PagerDuty's four severities from the alert's five. */
export const PAGERDUTY_SEVERITY: Record<Severity, 'critical' | 'error' | 'warning' | 'info'> = { critical: 'critical', major: 'error', minor: 'warning', warning: 'warning', info: 'info' };
/** Opsgenie's P1–P5 from the alert's severity. */
export const OPSGENIE_PRIORITY: Record<Severity, 'P1' | 'P2' | 'P3' | 'P4' | 'P5'> = { critical: 'P1', major: 'P2', minor: 'P3', warning: 'P4', info: 'P5' };
