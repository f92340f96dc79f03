import type { Clock } from '../../core/clock';
import { isTerminal, type Incident } from '../../core/incidents/model';
import type { EscalationStep } from '../../core/policy/schema';

export interface ChainDeps {
  clock: Clock;
  get: (incidentId: string) => Incident | undefined;
  steps: () => readonly EscalationStep[];
  /** Whether a person acknowledged the incident: the chain stops. */
  acknowledged: (incidentId: string) => boolean;
  /** Whether this step was taken for this request before (the timeline, after a restart). */
  recorded: (incidentId: string, requestId: string, index: number) => boolean;
  /** Takes the step (remind or page). */
  take: (incident: Incident, step: EscalationStep, index: number, requestId: string) => void;
}

/**
 * The timers of the escalation chain: for each incident with a pending approval request, the next
 * step not yet taken, due `after` from when the request was asked. A step overdue (a relay back
 * after a while) is taken at once, each of them once; anything but a pending request clears it.
 */
export function createChainTimers(deps: ChainDeps) {
  const timers = new Map<string, { cancel(): void }>();
  const taken = new Set<string>();
  const done = (id: string, requestId: string, index: number) => taken.has(`${id}:${requestId}:${index}`) || deps.recorded(id, requestId, index);

  function cancel(id: string): void {
    timers.get(id)?.cancel();
    timers.delete(id);
  }

  function schedule(incident: Incident, runDue = false): void {
    const id = incident.incident_id;
    cancel(id);
    const request = incident.approval_request;
    if (!request || request.status !== 'pending' || isTerminal(incident.state) || deps.acknowledged(id)) return;
    const steps = deps.steps();
    const asked = Date.parse(request.requested_at);
    const index = steps.findIndex((_, i) => !done(id, request.request_id, i));
    const step = steps[index];
    if (!step || Number.isNaN(asked)) return;
    const delay = Math.max(0, asked + step.after - deps.clock.now().getTime());
    if (runDue && delay === 0) return run(id, request.request_id, index);
    timers.set(id, deps.clock.setTimeout(() => {
      timers.delete(id);
      run(id, request.request_id, index);
    }, delay));
  }

  function run(id: string, requestId: string, index: number): void {
    const incident = deps.get(id);
    const request = incident?.approval_request;
    const step = deps.steps()[index];
    if (!incident || !request || !step || request.request_id !== requestId || request.status !== 'pending' || deps.acknowledged(id)) return;
    taken.add(`${id}:${requestId}:${index}`);
    deps.take(incident, step, index, requestId);
    schedule(incident, true);
  }

  return {
    /** Follows the incident as it is now: the next step's timer, or none. */
    schedule: (incident: Incident) => schedule(incident),
    cancel,
    stop(): void {
      for (const t of timers.values()) t.cancel();
      timers.clear();
    },
  };
}
