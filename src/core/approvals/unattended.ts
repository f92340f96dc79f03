import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Bus } from '../events/bus';
import type { RelayEvents } from '../incidents/events';
import { NO_APPLICATION, publicIncident, type Approval, type Decision, type Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import type { GateMove } from './gate-move';
import { pendingRequest } from './pending-request';
import { ApprovalError, type ApprovalRequestInput, type RequestResult } from './types';
import { entries } from '../events/timeline-entries';

/**
 * No channel a person could answer on: APPROVAL_WHEN_UNATTENDED decides (deny by default), loudly,
 * through the same gate steps a human decision takes, so the guard enforces it the same way.
 */
export function createUnattended(deps: { incidents: Incidents; move: GateMove; bus: Bus<RelayEvents>; clock: Clock; logger: Logger; whenUnattended: 'approve' | 'deny'; applyWindowMs: number }) {
  const { incidents, move, bus, clock, logger, applyWindowMs } = deps;
  const opts = { whenUnattended: deps.whenUnattended };
  return function skipUnattended(incident: Incident, input: ApprovalRequestInput): RequestResult {
    const effective: Decision = opts.whenUnattended === 'approve' ? 'APPROVED' : 'DENIED';
    const warning =
      effective === 'APPROVED'
        ? 'No approval channel is configured (no Webex room, no tray): the change is treated as APPROVED without a human because APPROVAL_WHEN_UNATTENDED=approve. Acceptable for local demos only.'
        : 'No approval channel is configured (no Webex room, no tray, not a headed run): the change is DENIED. Configure a channel, or set APPROVAL_WHEN_UNATTENDED=approve for demos.';
    const at = clock.now().toISOString();
    const approval: Approval = {
      decision: 'SKIPPED',
      effective,
      by: 'relay',
      channel: 'unattended',
      at,
      reason: warning,
      commands: input.commands,
      forwarded_at: at, // the tool result carries it
      acknowledged_at: at,
      request_id: '',
      apply_by: null,
    };
    // Asked of nobody and answered at once: it expires as it is made.
    const request = pendingRequest(incident, input, new Date(at), new Date(at), []);
    approval.request_id = request.request_id;
    if (effective === 'APPROVED') approval.apply_by = new Date(Date.parse(at) + applyWindowMs).toISOString();
    const asked = move(incident.incident_id, 'request', () => ({ approval: null, application: NO_APPLICATION, approval_request: request }));
    if (!asked.ok) throw new ApprovalError(asked.reason);
    const decided = move(incident.incident_id, effective === 'APPROVED' ? 'approve' : 'deny', (cur) => ({
      approval,
      warnings: [...cur.warnings, `approval_skipped: ${warning}`],
    }));
    if (!decided.ok) throw new ApprovalError(decided.reason);
    incidents.record(incident.incident_id, entries.approvalSkipped, warning, { decision: effective, commands: input.commands });
    logger.warn({ incident_id: incident.incident_id, decision: effective }, `approval skipped: ${warning}`);
    bus.publish('approval.decided', { incident: publicIncident(decided.incident), approval });
    return { status: 'skipped_with_warning', decision: effective, warning };
  }
}
