import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Bus } from '../events/bus';
import { entries } from '../events/timeline-entries';
import type { RelayEvents } from '../incidents/events';
import { isTerminal, publicIncident, type Approval } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import type { GateMove } from './gate-move';
import { standingOf } from './standing';
import type { createApprovalTimers } from './timers';
import type { DecideResult, OwnerDecision } from './types';
import { describeDecision } from './wording';

/**
 * The gate's own step of a human decision, whatever the channel, on the relay that owns the
 * incident: the first decision wins. People reach it through the relay's one `decide(command)`.
 */
export function createGateDecide(deps: {
  incidents: Incidents;
  move: GateMove;
  timers: ReturnType<typeof createApprovalTimers>;
  bus: Bus<RelayEvents>;
  clock: Clock;
  logger: Logger;
  applyWindowMs: number;
  /** The operator channels: a decision made on one of these is acknowledged there; the relay's own sources need no message. */
  channelNames: ReadonlySet<string>;
  forward(incidentId: string): void;
}) {
  const { incidents, move, timers, bus, clock, logger } = deps;
  return function decide(input: OwnerDecision): DecideResult {
    const { incident_id: incidentId, decision, actor, channel, reason, request_id: requestId } = input;
    const incident = incidents.get(incidentId);
    if (!incident) return { status: 'unknown_incident' };
    const current = incident.approval_request;
    // A decision is for the request its person was shown: an old card or a stale window decides nothing.
    if (requestId !== undefined && requestId !== current?.request_id) {
      return { status: 'stale_request', incident, request_id: requestId, pending_request_id: current?.status === 'pending' ? current.request_id : null };
    }
    if (incident.approval && incident.approval_request?.status !== 'pending') return { status: 'already_decided', incident, approval: incident.approval };
    if (isTerminal(incident.state) || incident.approval_request?.status !== 'pending') return { status: 'not_awaiting', incident };
    // Past its expires_at the request is over, whether or not the TTL timer has fired yet (a wall-clock
    // step, a restart): it expires now, and the caller is told it was decided by the TTL.
    if (Date.parse(incident.approval_request.expires_at) <= clock.now().getTime()) {
      const expired = timers.expireNow(incidentId);
      if (expired?.approval) return { status: 'already_decided', incident: expired, approval: expired.approval };
      return { status: 'not_awaiting', incident };
    }

    // Under the policy's requirement only enough distinct people's approvals approve (policy-decide.ts counts them).
    const standing = standingOf(incident.approval_request);
    if (decision === 'APPROVED' && incident.approval_request.requirement && standing.given < standing.needed) return { status: 'recorded', incident, standing };
    const at = clock.now().toISOString();
    // The operator typed it in a headed run's own terminal: the agent has read it there already. Only a
    // headed run has that terminal; any other incident's agent hears a decision only from the relay.
    const toldInSession = channel === 'terminal' && incident.kind === 'headed';
    const approval: Approval = {
      decision,
      effective: decision,
      by: actor.id,
      channel,
      at,
      reason: reason?.trim() ? reason.trim().slice(0, 500) : undefined,
      commands: incident.approval_request.commands,
      forwarded_at: toldInSession ? at : null,
      acknowledged_at: deps.channelNames.has(channel) ? null : at,
      request_id: incident.approval_request.request_id,
      apply_by: decision === 'APPROVED' ? new Date(Date.parse(at) + deps.applyWindowMs).toISOString() : null,
    };
    // Stored before anything is said or sent: a crash after this still forwards it on restart.
    const moved = move(incidentId, decision === 'APPROVED' ? 'approve' : 'deny', () => ({ approval }), toldInSession ? 'decide_in_session' : decision === 'APPROVED' ? 'approve' : 'deny');
    if (!moved.ok) return { status: 'not_awaiting', incident };
    timers.cancelExpiry(incidentId);
    incidents.record(incidentId, entries.approvalDecided, describeDecision(moved.incident, approval), { decision, by: actor.id, channel });
    logger.info({ incident_id: incidentId, decision, by: actor.id, channel }, 'approval decided');
    bus.publish('approval.decided', { incident: publicIncident(moved.incident), approval });
    if (approval.apply_by) timers.scheduleLapse(moved.incident);
    if (!toldInSession) deps.forward(incidentId);
    return { status: 'accepted', incident: moved.incident, approval };
  };
}
