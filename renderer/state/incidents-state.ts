import type { IncidentSummary, UiEvent } from '../bridge/contract';

/** Incidents by id plus a version that changes with every change, for cheap memoised sorting. */
export interface IncidentsState {
  byId: ReadonlyMap<string, IncidentSummary>;
  /** False until the first snapshot or list arrived. */
  loaded: boolean;
  version: number;
  /** Where the finished incidents older than those held start (null: none, or not known). */
  olderCursor: string | null;
}

export const emptyIncidents: IncidentsState = { byId: new Map(), loaded: false, version: 0, olderCursor: null };

/** Newer wins: an answer to an old request must not undo a live update that overtook it. */
function upsert(byId: Map<string, IncidentSummary>, incident: IncidentSummary) {
  const current = byId.get(incident.incident_id);
  if (current && current.updated_at > incident.updated_at) return false;
  byId.set(incident.incident_id, incident);
  return true;
}

export type IncidentsAction = UiEvent | { type: 'listed'; incidents: IncidentSummary[] } | { type: 'older'; incidents: IncidentSummary[]; next_cursor: string | null };

export function incidentsReducer(state: IncidentsState, action: IncidentsAction): IncidentsState {
  switch (action.type) {
    case 'snapshot':
      // The stream's snapshot is the whole truth at that moment (also after a reconnect).
      return { byId: new Map(action.incidents.map((i) => [i.incident_id, i])), loaded: true, version: state.version + 1, olderCursor: action.next_cursor ?? null };
    case 'listed': {
      const byId = new Map(state.byId);
      for (const incident of action.incidents) upsert(byId, incident);
      return { ...state, byId, loaded: true, version: state.version + 1 };
    }
    case 'older': {
      const byId = new Map(state.byId);
      for (const incident of action.incidents) upsert(byId, incident);
      return { ...state, byId, version: state.version + 1, olderCursor: action.next_cursor };
    }
    case 'incident.created':
    case 'incident.updated':
    case 'approval.requested':
    case 'approval.decided': {
      const byId = new Map(state.byId);
      if (!upsert(byId, action.incident)) return state;
      return { ...state, byId, version: state.version + 1 };
    }
    case 'incident.timeline':
      return state;
  }
}

/** `INC-…Z-12` → 12; ids of the same second count up from the plain one. */
const seqOf = (id: string) => Number(/-(\d+)$/.exec(id.replace(/^INC-\d{8}T\d{6}Z/, ''))?.[1] ?? 1);

/**
 * What needs a human first (awaiting approval), then newest first; incidents of the same
 * millisecond by their -2, -3 … suffix.
 */
/**
 * "What needs me now": approvals waiting (the one expiring soonest first), then runs in progress
 * and queued, then runs that failed or were escalated, then finished ones.
 */
const RANK: Record<IncidentSummary['state'], number> = {
  awaiting_approval: 0,
  approved: 1,
  denied: 1,
  running: 1,
  queued: 1,
  failed: 2,
  escalated: 2,
  resolved: 3,
};

export function sortIncidents(byId: ReadonlyMap<string, IncidentSummary>): IncidentSummary[] {
  return [...byId.values()].sort((a, b) => {
    const rank = RANK[a.state] - RANK[b.state];
    if (rank) return rank;
    if (a.state === 'awaiting_approval') {
      const expiry = (a.approval_request?.expires_at ?? '').localeCompare(b.approval_request?.expires_at ?? '');
      if (expiry) return expiry;
    }
    if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
    return seqOf(b.incident_id) - seqOf(a.incident_id) || b.incident_id.localeCompare(a.incident_id);
  });
}

/** Waiting for a decision, or ended without a fix: someone has to look. */
export const needsAttention = (i: IncidentSummary) => i.state === 'awaiting_approval' || i.state === 'failed' || i.state === 'escalated';
