import type { IncidentSummary } from '../bridge/contract';

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

export interface IncidentFilter {
  group: StateGroup;
  /** '' for every device. */
  device: string;
  /** Matches the incident id, the device or the neighbor, case-insensitively. */
  query: string;
}

export const NO_FILTER: IncidentFilter = { group: 'all', device: '', query: '' };

export function matchesQuery(i: IncidentSummary, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  return [i.incident_id, i.device_hostname, i.alert_vars.neighbor_ip ?? '', i.alert_def_id].some((v) => v.toLowerCase().includes(q));
}

export function filterIncidents(list: readonly IncidentSummary[], f: IncidentFilter): IncidentSummary[] {
  return list.filter((i) => (f.group === 'all' || groupOf(i) === f.group) && (!f.device || i.device_hostname === f.device) && matchesQuery(i, f.query));
}

/** The devices present, for the device filter. */
export const devicesOf = (list: readonly IncidentSummary[]) => [...new Set(list.map((i) => i.device_hostname))].sort((a, b) => a.localeCompare(b));

export function countByGroup(list: readonly IncidentSummary[]): Record<StateGroup, number> {
  const counts: Record<StateGroup, number> = { all: list.length, 'needs-me': 0, running: 0, finished: 0 };
  for (const i of list) counts[groupOf(i)]++;
  return counts;
}
