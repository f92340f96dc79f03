import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Bus } from '../events/bus';
import type { RelayEvents } from '../incidents/events';
import { publicIncident, type Approval, type Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import type { Owns } from '../incidents/ownership';
import type { GateMove } from './gate-move';
import { formatTtl } from './wording';
import { entries } from '../events/timeline-entries';

/**
 * The approval's two deadlines, armed only by the incident's owner: the TTL (no decision: expired
 * and escalated) and the apply window (approved but not applied: the approval lapses).
 */
export function createApprovalTimers(deps: {
  incidents: Incidents;
  move: GateMove;
  bus: Bus<RelayEvents>;
  clock: Clock;
  logger: Logger;
  owns: Owns;
  ttlMs: number;
  applyWindowMs: number;
  tellRoom(incidentId: string, markdown: string): void;
  forward(incidentId: string): void;
}) {
  const { incidents, move, bus, clock, logger, owns, applyWindowMs, tellRoom, forward } = deps;
  const opts = { ttlMs: deps.ttlMs };
  const expiryTimers = new Map<string, { cancel(): void }>();
  const lapseTimers = new Map<string, { cancel(): void }>();

  function scheduleExpiry(incident: Incident) {
    const request = incident.approval_request;
    if (!request || request.status !== 'pending' || !owns(incident.incident_id)) return;
    expiryTimers.get(incident.incident_id)?.cancel();
    const delay = Math.max(0, Date.parse(request.expires_at) - clock.now().getTime());
    expiryTimers.set(incident.incident_id, clock.setTimeout(() => expire(incident.incident_id, request.requested_at), delay));
  }

  const lapsed = (incident: Incident) => {
    const by = incident.approval?.apply_by;
    return Boolean(by && Date.parse(by) <= clock.now().getTime());
  };

  /** An APPROVED change not applied within the apply window expires: a new decision is needed. */
  function scheduleLapse(incident: Incident) {
    const by = incident.approval?.apply_by;
    const requestId = incident.approval_request?.request_id;
    if (!by || incident.approval_request?.status !== 'approved' || !owns(incident.incident_id)) return;
    lapseTimers.get(incident.incident_id)?.cancel();
    const delay = Math.max(0, Date.parse(by) - clock.now().getTime());
    lapseTimers.set(
      incident.incident_id,
      clock.setTimeout(() => {
        lapseTimers.delete(incident.incident_id);
        if (incidents.get(incident.incident_id)?.approval_request?.request_id === requestId) lapse(incident.incident_id);
      }, delay),
    );
  }

  function lapse(incidentId: string) {
    // Another relay took the incident over since the timer was armed: its timers are its own.
    if (!owns(incidentId)) return;
    const moved = move(incidentId, 'lapse', () => ({}));
    if (!moved.ok) return;
    const text = `The approved change was not applied within ${formatTtl(applyWindowMs)} of the decision (APPROVAL_APPLY_WINDOW): the approval expired, nothing was applied, a new decision is needed`;
    incidents.record(incidentId, entries.approvalLapsed, text, { request_id: moved.incident.approval_request?.request_id });
    logger.warn({ incident_id: incidentId }, 'approved change not applied within the apply window; approval expired');
  }

  function expire(incidentId: string, requestedAt: string): Incident | undefined {
    expiryTimers.get(incidentId)?.cancel();
    expiryTimers.delete(incidentId);
    const current = incidents.get(incidentId);
    if (!current || current.approval_request?.requested_at !== requestedAt || current.approval_request.status !== 'pending' || !owns(incidentId)) return undefined;
    const at = clock.now().toISOString();
    const summary = `No operator decision within ${formatTtl(opts.ttlMs)}: escalated without any change.`;
    const approval: Approval = {
      decision: 'EXPIRED',
      effective: 'DENIED',
      by: 'relay',
      channel: 'ttl',
      at,
      reason: `no decision within ${formatTtl(opts.ttlMs)}`,
      commands: current.approval_request.commands,
      forwarded_at: null,
      acknowledged_at: null,
      request_id: current.approval_request.request_id,
      apply_by: null,
    };
    const moved = move(incidentId, 'expire', () => ({ approval, outcome: { kind: 'escalated', summary, at } }), 'expire');
    if (!moved.ok) return undefined;
    incidents.record(incidentId, entries.approvalExpired, summary);
    logger.warn({ incident_id: incidentId }, 'approval expired; incident escalated');
    bus.publish('approval.decided', { incident: publicIncident(moved.incident), approval });
    tellRoom(incidentId, `⏰ **${incidentId}** on \`${current.device_hostname}\`: ${summary}`);
    forward(incidentId);
    return moved.incident;
  }

  return {
    scheduleExpiry,
    scheduleLapse,
    lapsed,
    lapse,
    /** A request found past its expires_at (its timer has not fired: a wall-clock step): it expires now. */
    expireNow(incidentId: string) {
      const requestedAt = incidents.get(incidentId)?.approval_request?.requested_at;
      return requestedAt === undefined ? undefined : expire(incidentId, requestedAt);
    },
    /** A decision (or the run's end) leaves nothing to expire. */
    cancelExpiry(incidentId: string) {
      expiryTimers.get(incidentId)?.cancel();
      expiryTimers.delete(incidentId);
    },
    stop() {
      for (const t of [...expiryTimers.values(), ...lapseTimers.values()]) t.cancel();
      expiryTimers.clear();
      lapseTimers.clear();
    },
  };
}
