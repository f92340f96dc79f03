import { describe, expect, it } from 'vitest';
import type { IncidentSummary } from '../../../renderer/bridge/contract';
import { emptyIncidents, incidentsReducer, sortIncidents } from '../../../renderer/state/incidents-state';
import { mergeTimeline } from '../../../renderer/state/timeline-merge';

const incident = (id: string, over: Partial<IncidentSummary> = {}): IncidentSummary => ({
  incident_id: id,
  session_id: null,
  alert_def_id: 'AD000002',
  device_hostname: 'R1',
  mode: 'strict',
  state: 'running',
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
  occurrences: 1,
  last_seen: '2026-11-21T10:00:00.000Z',
  warnings: [],
  alert_vars: {},
  kind: 'relay',
  field_sources: null,
  severity: null,
  progress: null,
  approval_request: null,
  approval: null,
  application: { status: 'none', device: null, at: null, error: null },
  change: null,
  outcome: null,
  delivery: { attempts: 0, next_attempt_at: null, last_error: null },
  ...over,
});

describe('incident list state', () => {
  it('keeps the newer copy when an old list answer arrives after a live update', () => {
    const live = incidentsReducer(emptyIncidents, { type: 'incident.updated', incident: incident('INC-1', { state: 'resolved', updated_at: '2026-11-21T10:05:00.000Z' }), previous_state: 'running' });
    const listed = incidentsReducer(live, { type: 'listed', incidents: [incident('INC-1')] });
    expect(listed.byId.get('INC-1')?.state).toBe('resolved');
    expect(listed.loaded).toBe(true);
  });

  it('takes a snapshot as the whole truth (an incident gone from it is gone)', () => {
    const two = incidentsReducer(emptyIncidents, { type: 'listed', incidents: [incident('INC-1'), incident('INC-2')] });
    const snap = incidentsReducer(two, { type: 'snapshot', incidents: [incident('INC-2')] });
    expect([...snap.byId.keys()]).toEqual(['INC-2']);
  });

  it('keeps the cursor of older finished incidents from the snapshot and adds each older page to the list', () => {
    const snap = incidentsReducer(emptyIncidents, { type: 'snapshot', incidents: [incident('INC-3')], next_cursor: 'c1' });
    expect(snap.olderCursor).toBe('c1');
    const older = incidentsReducer(snap, { type: 'older', incidents: [incident('INC-2', { state: 'resolved' })], next_cursor: 'c2' });
    expect([...older.byId.keys()].sort()).toEqual(['INC-2', 'INC-3']);
    expect(older.olderCursor).toBe('c2');
    const last = incidentsReducer(older, { type: 'older', incidents: [incident('INC-1', { state: 'failed' })], next_cursor: null });
    expect(last.byId.size).toBe(3);
    expect(last.olderCursor).toBeNull();
  });

  it('puts incidents awaiting approval first, then newest first, same-second ids by their number', () => {
    const at = '2026-11-21T10:00:00.000Z';
    const byId = new Map(
      [
        incident('INC-20261121T100000Z', { created_at: at }),
        incident('INC-20261121T100000Z-2', { created_at: at }),
        incident('INC-20261121T100000Z-10', { created_at: at }),
        incident('INC-20261121T090000Z', { created_at: '2026-11-21T09:00:00.000Z', state: 'awaiting_approval' }),
        incident('INC-20261121T110000Z', { created_at: '2026-11-21T11:00:00.000Z' }),
      ].map((i) => [i.incident_id, i]),
    );
    expect(sortIncidents(byId).map((i) => i.incident_id)).toEqual([
      'INC-20261121T090000Z',
      'INC-20261121T110000Z',
      'INC-20261121T100000Z-10',
      'INC-20261121T100000Z-2',
      'INC-20261121T100000Z',
    ]);
  });

  it('answers "what needs me now": approvals (soonest expiry first), then runs, then failed and escalated, then finished', () => {
    const pending = (expires_at: string) => ({ approval_request: { summary: 's', device: 'R1', commands: [], rollback: [], requested_at: '', expires_at, status: 'pending' as const, lines_sha256: '', channels: [], request_id: 'REQ-TEST-0001', terminal_shown_at: null } });
    const byId = new Map(
      [
        incident('done', { state: 'resolved', created_at: '2026-11-21T12:00:00.000Z' }),
        incident('failed', { state: 'failed', created_at: '2026-11-21T11:00:00.000Z' }),
        incident('running', { state: 'running', created_at: '2026-11-21T09:00:00.000Z' }),
        incident('queued', { state: 'queued', created_at: '2026-11-21T10:00:00.000Z' }),
        incident('late', { state: 'awaiting_approval', created_at: '2026-11-21T11:30:00.000Z', ...pending('2026-11-21T12:30:00.000Z') }),
        incident('soon', { state: 'awaiting_approval', created_at: '2026-11-21T08:00:00.000Z', ...pending('2026-11-21T12:05:00.000Z') }),
        incident('escalated', { state: 'escalated', created_at: '2026-11-21T08:30:00.000Z' }),
      ].map((i) => [i.incident_id, i]),
    );
    expect(sortIncidents(byId).map((i) => i.incident_id)).toEqual(['soon', 'late', 'queued', 'running', 'failed', 'escalated', 'done']);
  });
});

describe('timeline merge', () => {
  const e = (at: string, message: string) => ({ at, type: 'notify.step-progress', message });
  it('shows each entry once, in time order, whether it came by fetch, live, or both', () => {
    const base = [e('2026-11-21T10:00:01.000Z', 'a'), e('2026-11-21T10:00:03.000Z', 'c')];
    const live = [e('2026-11-21T10:00:03.000Z', 'c'), e('2026-11-21T10:00:02.000Z', 'b'), e('2026-11-21T10:00:04.000Z', 'd')];
    expect(mergeTimeline(base, live).map((x) => x.message)).toEqual(['a', 'b', 'c', 'd']);
  });
});
