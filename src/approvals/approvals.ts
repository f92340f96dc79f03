import type { Logger } from 'pino';
import type { AgentRuntime } from '../agent/types';
import type { Clock } from '../clock';
import type { Bus } from '../events/bus';
import type { RelayEvents } from '../incidents/events';
import { publicIncident, type Approval, type Decision, type Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import { approvalFallbackMarkdown, buildApprovalCard } from '../messaging/approval-card';
import { createDecisionForwarder } from './forwarder';
import type { OperatorRoom } from './operator-room';
import { ack, describeDecision, formatTtl } from './wording';

export interface ApprovalRequestInput {
  incident_id: string;
  summary: string;
  device: string;
  commands: string[];
  rollback?: string[];
  artifact_ref?: string;
}

export type RequestResult =
  | { status: 'pending'; expires_at: string; channels: string[] }
  | { status: 'skipped_with_warning'; decision: Decision; warning: string }
  | { status: 'headed'; message: string };

export type DecideResult =
  | { status: 'accepted'; incident: Incident; approval: Approval }
  | { status: 'already_decided'; incident: Incident; approval: Approval }
  | { status: 'not_awaiting'; incident: Incident }
  | { status: 'unknown_incident' };

export interface Actor {
  /** E-mail or OS user name: who the room and the log will name. */
  id: string;
  display?: string;
}

/** A tool error the agent can read: says why, changes nothing. */
export class ApprovalError extends Error {
  override readonly name = 'ApprovalError';
}

export { HEADED_PREFIX } from '../alert/direct-prompt';
import { HEADED_PREFIX } from '../alert/direct-prompt';

export interface ApprovalsOptions {
  incidents: Incidents;
  agent: AgentRuntime;
  bus: Bus<RelayEvents>;
  room?: OperatorRoom;
  /** Other live channels (the tray's desktop notification); named in the `pending` answer. */
  extraChannels?: () => string[];
  ttlMs: number;
  whenUnattended: 'approve' | 'deny';
  /** The run's agent: opencode answers a prompt without one with its default agent (build), not the session's. */
  agentName?: string;
  clock: Clock;
  logger: Logger;
}

export function createApprovals(opts: ApprovalsOptions) {
  const { incidents, agent, bus, room, clock, logger } = opts;
  const expiryTimers = new Map<string, { cancel(): void }>();
  /** Headed runs: what their operator was shown, so the device guard applies nothing else. */
  const headedRequests = new Map<string, { device: string; commands: string[] }>();
  const forwarder = createDecisionForwarder({ incidents, agent, agentName: opts.agentName, clock, logger });
  const forward = forwarder.forward;

  const channels = () => [...(room ? ['webex'] : []), ...(opts.extraChannels?.() ?? [])];

  const tellRoom = (incidentId: string, markdown: string) => {
    if (!room) return;
    room.postMarkdown(markdown).catch((error: unknown) => {
      logger.error({ incident_id: incidentId, err: error }, 'could not post to the operator room');
      incidents.record(incidentId, 'room.error', `Could not post to the room: ${(error as Error).message}`);
    });
  };

  function scheduleExpiry(incident: Incident) {
    const request = incident.approval_request;
    if (!request) return;
    expiryTimers.get(incident.incident_id)?.cancel();
    const delay = Math.max(0, Date.parse(request.expires_at) - clock.now().getTime());
    expiryTimers.set(
      incident.incident_id,
      clock.setTimeout(() => expire(incident.incident_id, request.requested_at), delay),
    );
  }

  function expire(incidentId: string, requestedAt: string) {
    expiryTimers.delete(incidentId);
    const current = incidents.get(incidentId);
    if (!current || current.state !== 'awaiting_approval' || current.approval_request?.requested_at !== requestedAt) return;
    const at = clock.now().toISOString();
    const approval: Approval = {
      decision: 'EXPIRED',
      effective: 'DENIED',
      by: 'relay',
      channel: 'ttl',
      at,
      reason: `no decision within ${formatTtl(opts.ttlMs)}`,
      commands: current.approval_request?.commands ?? [],
      forwarded_at: null,
      acknowledged_at: null,
    };
    const summary = `No operator decision within ${formatTtl(opts.ttlMs)}: escalated without any change.`;
    const next = incidents.update(incidentId, () => ({ state: 'escalated', approval, outcome: { kind: 'escalated', summary, at } }));
    incidents.record(incidentId, 'approval.expired', summary);
    logger.warn({ incident_id: incidentId }, 'approval expired; incident escalated');
    bus.publish('approval.decided', { incident: publicIncident(next), approval });
    tellRoom(incidentId, `⏰ **${incidentId}** on \`${current.device_hostname}\`: ${summary}`);
    forward(incidentId);
  }

  /** Posts the room acknowledgement of a decision and records that it was posted. */
  async function acknowledge(incidentId: string): Promise<void> {
    const incident = incidents.get(incidentId);
    if (!room || !incident?.approval || incident.approval.acknowledged_at) return;
    await room.postMarkdown(ack.accepted(incident, incident.approval));
    const at = clock.now().toISOString();
    incidents.update(incidentId, (cur) => ({ approval: cur.approval ? { ...cur.approval, acknowledged_at: at } : cur.approval }));
  }

  async function request(input: ApprovalRequestInput): Promise<RequestResult> {
    if (input.incident_id.startsWith(HEADED_PREFIX)) {
      headedRequests.set(input.incident_id, { device: input.device, commands: [...input.commands] });
      logger.info({ incident_id: input.incident_id, lines: input.commands.length }, 'headed approval: the operator answers in the terminal');
      return {
        status: 'headed',
        message: 'Headed run: ask the operator in this terminal to type APPROVED or DENIED, and wait for the answer.',
      };
    }
    const incident = incidents.get(input.incident_id);
    if (!incident) throw new ApprovalError(`unknown incident ${input.incident_id}: use the incident_id from the alert prompt`);
    if (incident.state === 'awaiting_approval') {
      throw new ApprovalError(`${incident.incident_id} is already awaiting approval (requested ${incident.approval_request?.requested_at}); wait for the human operator response`);
    }
    if (incident.state !== 'running') {
      throw new ApprovalError(`${incident.incident_id} is ${incident.state}; approvals can only be requested while the run is running`);
    }
    if (input.commands.length === 0) throw new ApprovalError('commands is empty: name the exact configuration lines to approve');

    const now = clock.now();
    const live = channels();
    if (live.length === 0) return skipUnattended(incident, input);

    const expires_at = new Date(now.getTime() + opts.ttlMs).toISOString();
    let next = incidents.update(incident.incident_id, () => ({
      state: 'awaiting_approval',
      approval: null,
      approval_request: {
        summary: input.summary,
        device: input.device,
        commands: input.commands,
        rollback: input.rollback ?? [],
        artifact_ref: input.artifact_ref,
        requested_at: now.toISOString(),
        expires_at,
      },
    }));
    incidents.record(next.incident_id, 'approval.requested', `Approval requested for ${input.commands.length} command(s) on ${input.device}`, {
      commands: input.commands,
      channels: live,
    });
    scheduleExpiry(next);
    bus.publish('approval.requested', { incident: publicIncident(next), request: next.approval_request! });

    if (room) {
      const cardInput = {
        incident_id: next.incident_id,
        alert_def_id: next.alert_def_id,
        device: input.device,
        summary: input.summary,
        commands: input.commands,
        rollback: input.rollback,
        artifact_ref: input.artifact_ref,
        expires_at,
      };
      try {
        const posted = await room.postCard(buildApprovalCard(cardInput), approvalFallbackMarkdown(cardInput));
        next = incidents.update(next.incident_id, (cur) => ({
          approval_request: cur.approval_request ? { ...cur.approval_request, card_message_id: posted.id } : null,
        }));
      } catch (error) {
        logger.error({ incident_id: next.incident_id, err: error }, 'approval card could not be posted');
        incidents.record(next.incident_id, 'room.error', `Approval card could not be posted: ${(error as Error).message}`);
      }
    }
    logger.info({ incident_id: next.incident_id, channels: live }, 'approval pending');
    return { status: 'pending', expires_at, channels: live };
  }

  function skipUnattended(incident: Incident, input: ApprovalRequestInput): RequestResult {
    const effective: Decision = opts.whenUnattended === 'deny' ? 'DENIED' : 'APPROVED';
    const warning =
      effective === 'APPROVED'
        ? 'No approval channel is configured (no Webex room, no tray): the change is treated as APPROVED without a human. Acceptable for local demos only.'
        : 'No approval channel is configured: the change is DENIED (APPROVAL_WHEN_UNATTENDED=deny).';
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
    };
    incidents.update(incident.incident_id, (cur) => ({
      state: effective === 'APPROVED' ? 'approved' : 'denied',
      approval,
      approval_request: { summary: input.summary, device: input.device, commands: input.commands, rollback: input.rollback ?? [], artifact_ref: input.artifact_ref, requested_at: at, expires_at: at },
      warnings: [...cur.warnings, `approval_skipped: ${warning}`],
    }));
    incidents.record(incident.incident_id, 'approval.skipped', warning, { decision: effective, commands: input.commands });
    logger.warn({ incident_id: incident.incident_id, decision: effective }, `approval skipped: ${warning}`);
    const next = incidents.update(incident.incident_id, () => ({ state: 'running' }));
    bus.publish('approval.decided', { incident: publicIncident(next), approval });
    return { status: 'skipped_with_warning', decision: effective, warning };
  }

  /** The one way a decision is made, whatever the channel. The first decision wins. */
  function decide(incidentId: string, decision: Decision, actor: Actor, channel: string, reason?: string): DecideResult {
    const incident = incidents.get(incidentId);
    if (!incident) return { status: 'unknown_incident' };
    if (incident.approval && incident.state !== 'awaiting_approval') {
      return { status: 'already_decided', incident, approval: incident.approval };
    }
    if (incident.state !== 'awaiting_approval' || !incident.approval_request) return { status: 'not_awaiting', incident };

    expiryTimers.get(incidentId)?.cancel();
    expiryTimers.delete(incidentId);
    const approval: Approval = {
      decision,
      effective: decision,
      by: actor.id,
      channel,
      at: clock.now().toISOString(),
      reason: reason?.trim() ? reason.trim().slice(0, 500) : undefined,
      commands: incident.approval_request.commands,
      forwarded_at: null,
      acknowledged_at: channel === 'webex' ? null : clock.now().toISOString(),
    };
    // Stored before anything is said or sent: a crash after this still forwards it on restart.
    const next = incidents.update(incidentId, () => ({ state: decision === 'APPROVED' ? 'approved' : 'denied', approval }));
    incidents.record(incidentId, 'approval.decided', describeDecision(next, approval), { decision, by: actor.id, channel });
    logger.info({ incident_id: incidentId, decision, by: actor.id, channel }, 'approval decided');
    bus.publish('approval.decided', { incident: publicIncident(next), approval });
    forward(incidentId);
    return { status: 'accepted', incident: next, approval };
  }

  return {
    request,
    decide,
    channels,
    /** Incidents waiting for a decision, newest first. */
    pending: () => incidents.open().filter((i) => i.state === 'awaiting_approval').sort((a, b) => (b.approval_request?.requested_at ?? '').localeCompare(a.approval_request?.requested_at ?? '')),
    /** After a restart: TTL timers again, and decisions the agent has not heard yet are sent. */
    recover() {
      for (const incident of incidents.open()) {
        if (incident.state === 'awaiting_approval') scheduleExpiry(incident);
        if (incident.approval && !incident.approval.forwarded_at) forward(incident.incident_id);
      }
      for (const incident of incidents.list()) {
        if (incident.approval?.decision === 'EXPIRED' && !incident.approval.forwarded_at) forward(incident.incident_id);
        if (incident.approval && !incident.approval.acknowledged_at) {
          void acknowledge(incident.incident_id).catch((error: unknown) =>
            logger.error({ incident_id: incident.incident_id, err: error }, 'could not post a pending acknowledgement'),
          );
        }
      }
    },
    tellRoom,
    acknowledge,
    headed: {
      peek: (id: string) => headedRequests.get(id),
      take(id: string) {
        const found = headedRequests.get(id);
        headedRequests.delete(id);
        return found;
      },
    },
    stop() {
      forwarder.stop();
      for (const t of expiryTimers.values()) t.cancel();
      expiryTimers.clear();
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
