import { describe, expect, it } from 'vitest';
import type { IncidentSummary } from '../../../renderer/bridge/contract';
import { approversOf, countByGroup, devicesOf, filterIncidents, NO_FILTER } from '../../../renderer/state/incident-filter';

const incident = (id: string, state: IncidentSummary['state'], device: string, neighbor: string) =>
  ({ incident_id: id, state, device_hostname: device, alert_def_id: 'AD000002', alert_vars: { neighbor_ip: neighbor } }) as unknown as IncidentSummary;

const LIST = [
  incident('INC-1', 'awaiting_approval', 'R1', '10.0.0.2'),
  incident('INC-2', 'running', 'R2', '10.0.1.2'),
  incident('INC-3', 'escalated', 'R1', '10.0.0.6'),
  incident('INC-4', 'resolved', 'edge-07', '192.0.2.1'),
  incident('INC-5', 'failed', 'R2', '10.0.1.9'),
  incident('INC-6', 'queued', 'R3', '10.0.2.2'),
];
const ids = (list: IncidentSummary[]) => list.map((i) => i.incident_id);

describe('incident list filters', () => {
  it('"needs me" is what a person must act on: approvals waiting, failed and escalated runs', () => {
    expect(ids(filterIncidents(LIST, { ...NO_FILTER, group: 'needs-me' }))).toEqual(['INC-1', 'INC-3', 'INC-5']);
    expect(ids(filterIncidents(LIST, { ...NO_FILTER, group: 'running' }))).toEqual(['INC-2', 'INC-6']);
    expect(ids(filterIncidents(LIST, { ...NO_FILTER, group: 'finished' }))).toEqual(['INC-4']);
    expect(countByGroup(LIST)).toEqual({ all: 6, 'needs-me': 3, running: 2, finished: 1 });
  });

  it('filters by device and searches id, device and neighbor, case-insensitively', () => {
    expect(ids(filterIncidents(LIST, { ...NO_FILTER, device: 'R2' }))).toEqual(['INC-2', 'INC-5']);
    expect(ids(filterIncidents(LIST, { ...NO_FILTER, query: '10.0.0.' }))).toEqual(['INC-1', 'INC-3']);
    expect(ids(filterIncidents(LIST, { ...NO_FILTER, query: 'EDGE' }))).toEqual(['INC-4']);
    expect(ids(filterIncidents(LIST, { ...NO_FILTER, query: 'inc-6' }))).toEqual(['INC-6']);
    expect(ids(filterIncidents(LIST, { ...NO_FILTER, group: 'needs-me', device: 'R1', query: '10.0.0.6' }))).toEqual(['INC-3']);
    expect(devicesOf(LIST)).toEqual(['edge-07', 'R1', 'R2', 'R3']);
  });

  it('filters by when an incident was raised, how it ended and who decided, as the API does', () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    const ended = (id: string, hoursAgo: number, kind: 'resolved' | 'escalated', by: string) =>
      ({ ...incident(id, kind, 'R1', '10.0.0.2'), created_at: new Date(now - hoursAgo * 3_600_000).toISOString(), outcome: { kind, summary: '', at: '' }, approval: { by } }) as unknown as IncidentSummary;
    const list = [ended('A', 0.5, 'resolved', 'Ana Ruiz'), ended('B', 5, 'escalated', 'Bo Li'), ended('C', 30, 'resolved', 'Bo Li')];
    expect(ids(filterIncidents(list, { ...NO_FILTER, since: '1h' }, now))).toEqual(['A']);
    expect(ids(filterIncidents(list, { ...NO_FILTER, since: '24h' }, now))).toEqual(['A', 'B']);
    expect(ids(filterIncidents(list, { ...NO_FILTER, outcome: 'resolved' }, now))).toEqual(['A', 'C']);
    expect(ids(filterIncidents(list, { ...NO_FILTER, approver: 'Bo Li', since: '7d' }, now))).toEqual(['B', 'C']);
    expect(approversOf(list)).toEqual(['Ana Ruiz', 'Bo Li']);
  });
});
