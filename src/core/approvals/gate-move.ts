import type { Incident } from '../incidents/model';
import type { IncidentChange, Incidents } from '../incidents/service';
import type { IncidentEvent } from '../incidents/state';
import { transition, type GateEvent, type GatePhase } from './lifecycle';

export const phaseOf = (incident: Incident): GatePhase => ({
  approval: incident.approval_request?.status ?? 'none',
  application: incident.application.status,
});

export type GateMove = (
  incidentId: string,
  event: GateEvent,
  patch: (cur: Incident) => IncidentChange,
  stateEvent?: IncidentEvent,
) => { ok: true; incident: Incident } | { ok: false; reason: string };

/** The gate's one writer over the incidents (src/core/approvals/lifecycle.ts holds the table). */
export function createGateMove(incidents: Incidents): GateMove {
  /**
   * Moves the gate by one event of the table and stores the result with `patch`, in one
   * synchronous step: nothing can interleave between the check and the write.
   */
  return function move(
    incidentId: string,
    event: GateEvent,
    patch: (cur: Incident) => IncidentChange,
    /** The incident's own state event that goes with this step (src/core/incidents/state.ts), if any. */
    stateEvent?: IncidentEvent,
  ): { ok: true; incident: Incident } | { ok: false; reason: string } {
    const current = incidents.get(incidentId);
    if (!current) return { ok: false, reason: `unknown incident ${incidentId}` };
    const step = transition(phaseOf(current), event);
    if (!step.ok) return step;
    if (stateEvent && !incidents.can(incidentId, stateEvent)) return { ok: false, reason: `${incidentId} is ${current.state}` };
    const write = (change: (cur: Incident) => IncidentChange) => (stateEvent ? incidents.transition(incidentId, stateEvent, change) : incidents.update(incidentId, change));
    const incident = write((cur) => {
      const changes = patch(cur);
      const request = changes.approval_request === undefined ? cur.approval_request : changes.approval_request;
      return {
        ...changes,
        approval_request: request ? { ...request, status: step.next.approval === 'none' ? request.status : step.next.approval } : request,
        application: { ...(changes.application ?? cur.application), status: step.next.application },
      };
    });
    return { ok: true, incident };
  };
}
