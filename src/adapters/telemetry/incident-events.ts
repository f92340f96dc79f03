import type { Bus } from '../../core/events/bus';
import type { RelayEvents } from '../../core/incidents/events';
import type { Incident } from '../../core/incidents/model';
import { recordIncidentSpan, TRACE_ATTRIBUTES } from './incident-trace';
import { tracingActive } from './sdk';

/**
 * Spans for what the relay learns of after the fact: an approval's wait, from its request to the
 * decision (or its expiry), under the incident's trace. Told by the bus, so it holds for every
 * channel a decision comes from, and after a restart (the request's time is stored).
 */
export function traceApprovalWaits(bus: Bus<RelayEvents>, incident: (id: string) => Incident | undefined): () => void {
  if (!tracingActive()) return () => {};
  return bus.subscribe('approval.decided', ({ incident: decided, approval }) => {
    const stored = incident(decided.incident_id);
    const request = stored?.approval_request;
    if (!stored || !request || request.request_id !== approval.request_id) return;
    recordIncidentSpan(stored, 'approval.wait', new Date(request.requested_at), new Date(approval.at), {
      [TRACE_ATTRIBUTES.request]: request.request_id,
      'fault_relay.approval.decision': approval.decision,
      'fault_relay.approval.channel': approval.channel,
    });
  });
}
