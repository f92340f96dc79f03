import type { IncidentSummary } from '../bridge/contract';
import { matchesIncidentQuery, OUTCOME_KINDS } from '../../src/core/incidents/incident-query';

/**
 * The list's filters, as pure functions: which incidents an engineer sees for a state group, a device
 * and a search. "Needs me" is what a person must act on: an approval waiting, or a run that failed or
 * was escalated.
 */
export const STATE_GROUPS = ['all', 'needs-me', 'running', 'finished'] as const;
export type StateGroup = (typeof STATE_GROUPS)[number];

export const GROUP_LABEL: Record<StateGroup, string> = { all: 'All', 'needs-me': 'Needs me', running: 'Running', finished: 'Finished' };

const GROUP_OF: Record<IncidentSummary['state'], Exclude<StateGroup, 'all'>> = {
  awaiting_approval: 'needs-me',
  failed: 'needs-me',
  escalated: 'needs-me',
  queued: 'running',
  running: 'running',
  approved: 'running',
  denied: 'running',
  resolved: 'finished',
};

export const groupOf = (i: IncidentSummary) => GROUP_OF[i.state];

/** How far back the list looks, by when an incident was raised. */
export const TIME_RANGES = { '': 'Any time', '1h': 'Last hour', '24h': 'Last 24 hours', '7d': 'Last 7 days' } as const;
export type TimeRange = keyof typeof TIME_RANGES;
const RANGE_MS: Record<TimeRange, number> = { '': 0, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 };

export const OUTCOMES = OUTCOME_KINDS;
export type OutcomeFilter = '' | (typeof OUTCOME_KINDS)[number];

export interface IncidentFilter {
  group: StateGroup;
  /** '' for every device. */
  device: string;
  /** Matches the incident id, the device or the neighbor, case-insensitively. */
  query: string;
  since: TimeRange;
  /** '' for anyone; else the person who decided, as the relay recorded them. */
  approver: string;
  outcome: OutcomeFilter;
}

export const NO_FILTER: IncidentFilter = { group: 'all', device: '', query: '', since: '', approver: '', outcome: '' };

export function matchesQuery(i: IncidentSummary, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  return [i.incident_id, i.device_hostname, i.alert_vars.neighbor_ip ?? '', i.alert_def_id].some((v) => v.toLowerCase().includes(q));
}

/** The same query the API's `/sessions` takes, so the list and the API find the same incidents. */
export function filterIncidents(list: readonly IncidentSummary[], f: IncidentFilter, now = Date.now()): IncidentSummary[] {
  const query = {
    ...(f.since ? { from: new Date(now - RANGE_MS[f.since]).toISOString() } : {}),
    ...(f.device ? { device: f.device } : {}),
    ...(f.outcome ? { outcome: f.outcome } : {}),
  };
  return list.filter((i) => (f.group === 'all' || groupOf(i) === f.group) && matchesIncidentQuery(i, query) && (!f.approver || i.approval?.by === f.approver) && matchesQuery(i, f.query));
}

/** The people who decided, for the approver filter. */
export const approversOf = (list: readonly IncidentSummary[]) => [...new Set(list.flatMap((i) => (i.approval?.by ? [i.approval.by] : [])))].sort((a, b) => a.localeCompare(b));

/** The devices present, for the device filter. */
export const devicesOf = (list: readonly IncidentSummary[]) => [...new Set(list.map((i) => i.device_hostname))].sort((a, b) => a.localeCompare(b));

export function countByGroup(list: readonly IncidentSummary[]): Record<StateGroup, number> {
  const counts: Record<StateGroup, number> = { all: list.length, 'needs-me': 0, running: 0, finished: 0 };
  for (const i of list) counts[groupOf(i)]++;
  return counts;
}
