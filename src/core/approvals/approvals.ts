import { isTerminal, NO_APPLICATION, publicIncident, type Approval, type Decision, type Incident } from '../incidents/model';
import { ownsEverything } from '../incidents/ownership';
import { newestFirst } from '../incidents/store';
import { createDecisionForwarder } from './forwarder';
import type { DecisionChannel } from './lifecycle';
import { canonicalLines, shortHash } from './lines';
import { evidenceOf } from './evidence';
import { describeDecision } from './wording';
import type { ApprovalAsk } from './operator-channel';
import { entries } from '../events/timeline-entries';
export * from './types';
import { ApprovalError, type Actor, type ApprovalRequestInput, type ApprovalsOptions, type DecideResult, type RequestResult } from './types';
import { createGateMove } from './gate-move';
import { createApprovalTimers } from './timers';
import { createUnattended } from './unattended';
import { createPolicyGate } from './policy-gate';
import { createPolicyRecheck } from './policy-recheck';
import { createClaim, sameDevice } from './claim';
import { pendingRequest } from './pending-request';
import { requestRequirementLine, standingOf } from './standing';
import { createVoteRecorder } from './votes';
import { createRoom } from './room';
import { createDeviceGate } from './device-gate';

/**
 * The approval lifecycle: the only code that moves an incident's gate (lifecycle.ts holds the
 * table). Every channel decides through `decide()`, the device guard applies through `claim()`.
 */
export function createApprovals(opts: ApprovalsOptions) {
  const { incidents, agent, bus, clock, logger } = opts;
  const channels = opts.channels ?? [];
  // A decision made on one of these is acknowledged there; the relay's own sources need no message.
  const channelNames = new Set(channels.map((c) => c.name));
  const applyWindowMs = opts.applyWindowMs ?? opts.ttlMs;
  const owns = opts.owns ?? ownsEverything;
  const forwarder = createDecisionForwarder({ incidents, agent, agentName: opts.agentName, clock, logger, owns });
  const forward = forwarder.forward;
  const move = createGateMove(incidents);

  /** The channels a human can answer on for this incident; the terminal only for a headed run. */
  const channelsFor = (incident?: Incident) => [
    ...(incident?.kind === 'headed' ? ['terminal'] : []),
    ...channels.map((c) => c.name),
    ...(opts.extraChannels?.() ?? []),
  ];

  const { tellRoom, acknowledge } = createRoom({ channels, incidents, clock, logger });
  const timers = createApprovalTimers({ incidents, move, bus, clock, logger, owns, ttlMs: opts.ttlMs, applyWindowMs, tellRoom, forward });
  const recheck = opts.policy ? createPolicyRecheck({ policy: opts.policy, incidents, move, clock, logger, tellRoom }) : undefined;
  const claim = createClaim({ incidents, move, timers, clock, logger, applyWindowMs, ...(recheck ? { recheck } : {}) });
  const policyGate = opts.policy ? createPolicyGate({ policy: opts.policy, incidents, clock, logger, tellRoom, approversIn: opts.approversIn ?? (() => 0) }) : undefined;
  const deviceGate = createDeviceGate({ incidents, bus, clock, logger, tellRoom, owns, ...(opts.quarantined ? { quarantined: opts.quarantined } : {}), ...(opts.held ? { store: opts.held } : {}), ask: (input) => request(input) });
  const skipUnattended = createUnattended({ incidents, move, bus, clock, logger, whenUnattended: opts.whenUnattended, applyWindowMs });

  function validateRequest(input: ApprovalRequestInput): Incident {
    const incident = incidents.get(input.incident_id);
    if (!incident) throw new ApprovalError(`unknown incident ${input.incident_id}: use the incident_id from the alert prompt`);
    if (incident.state === 'awaiting_approval') {
      throw new ApprovalError(`${incident.incident_id} is already awaiting approval (requested ${incident.approval_request?.requested_at}); wait for the human operator response`);
    }
    if (incident.state !== 'running') throw new ApprovalError(`${incident.incident_id} is ${incident.state}; approvals can only be requested while the run is running`);
    // One approval, one device: refused when asked, not later when applied.
    if (!sameDevice(input.device, incident.device_hostname)) {
      throw new ApprovalError(`${incident.incident_id} is about ${incident.device_hostname}; an approval can only cover that device, not ${input.device}`);
    }
    if (canonicalLines(input.commands).length === 0) throw new ApprovalError('commands is empty: name the exact configuration lines to approve');
    return incident;
  }

  async function request(input: ApprovalRequestInput): Promise<RequestResult> {
    // The device's own state first (a read of the quarantines); the request is checked again after it.
    const gated = await deviceGate.gate(validateRequest(input), input);
    if (gated) return gated;
    const incident = validateRequest(input);
    const live = channelsFor(incident);
    const gate = policyGate?.(incident, input, live);
    if (gate && 'refused' in gate) return gate.refused;
    // A requirement naming groups is never met unattended: the gate escalates when nobody can be asked.
    if (live.length === 0) return skipUnattended(incident, input);

    const now = clock.now();
    const asked = { ...pendingRequest(incident, input, now, new Date(now.getTime() + opts.ttlMs), live), requirement: gate?.requirement ?? null };
    const { request_id, expires_at, lines_sha256 } = asked;
    const moved = move(incident.incident_id, 'request', () => ({ approval: null, application: NO_APPLICATION, approval_request: asked }), 'request_approval');
    if (!moved.ok) throw new ApprovalError(moved.reason);
    let next = moved.incident;
    incidents.record(next.incident_id, entries.approvalRequested, `Approval ${request_id} requested for ${input.commands.length} command(s) on ${next.device_hostname} (lines ${shortHash(lines_sha256)})`, {
      request_id,
      commands: input.commands,
      channels: live,
      lines_sha256,
    });
    timers.scheduleExpiry(next);
    bus.publish('approval.requested', { incident: publicIncident(next), request: next.approval_request! });

    if (channels.length > 0) {
      const ask: ApprovalAsk = {
        incident_id: next.incident_id,
        request_id,
        alert_def_id: next.alert_def_id,
        device: next.device_hostname,
        summary: input.summary,
        commands: input.commands,
        artifact_ref: input.artifact_ref,
        expires_at,
        lines_sha256,
        evidence: evidenceOf(incidents.timeline(next.incident_id)),
        preview: asked.preview ?? null,
        ...(asked.requirement ? { policy: requestRequirementLine(asked) } : {}),
        ...(asked.plan ? { plan: asked.plan } : {}),
      };
      next = await askEverywhere(next, ask);
    }
    if (next.kind === 'headed') await showHeadedQuestion(next);
    logger.info({ incident_id: next.incident_id, request_id, channels: live }, 'approval pending');
    const online = opts.approversOnline?.();
    return {
      status: 'pending',
      request_id,
      expires_at,
      channels: live,
      lines_sha256,
      ...(online ? { approvers_online: online } : {}),
      ...(online && online.length === 0 && live.every((c) => c === 'api')
        ? { warning: 'No approver is following the relay right now (no tray connected, no room): the request waits for a decision over the API until it expires.' }
        : {}),
      ...(next.kind === 'headed'
        ? { note: 'The relay has shown this request to the operator in the terminal UI (lines, device, hash). Do not repeat or restate it: stop and wait for the HUMAN OPERATOR RESPONSE.' }
        : {}),
    };
  }

  /** Asks on every channel at once; each message id is kept under its channel's name for the adapter. */
  async function askEverywhere(incident: Incident, ask: ApprovalAsk): Promise<Incident> {
    const results = await Promise.allSettled(channels.map((c) => c.ask(ask)));
    const posted: Record<string, string> = {};
    results.forEach((r, i) => {
      const channel = channels[i]!;
      if (r.status === 'fulfilled') {
        posted[channel.name] = r.value.message_id;
        return;
      }
      const error = r.reason as Error;
      logger.error({ incident_id: incident.incident_id, channel: channel.name, err: error }, 'approval card could not be posted');
      incidents.record(incident.incident_id, entries.roomError, `Approval card could not be posted${channels.length > 1 ? ` on ${channel.name}` : ''}: ${error.message}`);
    });
    if (Object.keys(posted).length === 0) return incident;
    return incidents.update(incident.incident_id, (cur) => ({
      approval_request: cur.approval_request && cur.approval_request.request_id === ask.request_id ? { ...cur.approval_request, channel_messages: { ...cur.approval_request.channel_messages, ...posted } } : cur.approval_request,
    }));
  }

  /**
   * A headed run's question is written into the operator's terminal session by the relay itself:
   * what the operator reads there is the relay's record of the request, never the model's retelling.
   * Typed decisions count only once it has been shown (routes/headed-terminal.ts).
   */
  async function showHeadedQuestion(incident: Incident) {
    if (!opts.showInTerminal || !incident.session_id) {
      incidents.record(incident.incident_id, entries.approvalNotShown, 'The headed run has no terminal session on this relay: decide in the tray, at /ui or over the API');
      return;
    }
    try {
      await opts.showInTerminal(incident);
      const at = clock.now().toISOString();
      const requestId = incident.approval_request?.request_id;
      incidents.update(incident.incident_id, (cur) => ({
        approval_request: cur.approval_request && cur.approval_request.request_id === requestId ? { ...cur.approval_request, terminal_shown_at: at } : cur.approval_request,
      }));
      incidents.record(incident.incident_id, entries.approvalShown, `Request ${requestId} shown to the operator in the terminal UI`, { request_id: requestId });
    } catch (error) {
      logger.warn({ incident_id: incident.incident_id, err: error }, 'could not show the approval question in the terminal');
      incidents.record(incident.incident_id, entries.approvalNotShown, `The question could not be shown in the terminal (${(error as Error).message}): decide in the tray, at /ui or over the API`);
    }
  }

  /** The one way a human decision is made, whatever the channel. The first decision wins. */
  function decide(incidentId: string, decision: Decision, actor: Actor, channel: DecisionChannel, reason?: string, requestId?: string): DecideResult {
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
      acknowledged_at: channelNames.has(channel) ? null : at,
      request_id: incident.approval_request.request_id,
      apply_by: decision === 'APPROVED' ? new Date(Date.parse(at) + applyWindowMs).toISOString() : null,
    };
    // Stored before anything is said or sent: a crash after this still forwards it on restart.
    const moved = move(incidentId, decision === 'APPROVED' ? 'approve' : 'deny', () => ({ approval }), toldInSession ? 'decide_in_session' : decision === 'APPROVED' ? 'approve' : 'deny');
    if (!moved.ok) return { status: 'not_awaiting', incident };
    timers.cancelExpiry(incidentId);
    incidents.record(incidentId, entries.approvalDecided, describeDecision(moved.incident, approval), { decision, by: actor.id, channel });
    logger.info({ incident_id: incidentId, decision, by: actor.id, channel }, 'approval decided');
    bus.publish('approval.decided', { incident: publicIncident(moved.incident), approval });
    if (approval.apply_by) timers.scheduleLapse(moved.incident);
    if (!toldInSession) forward(incidentId);
    return { status: 'accepted', incident: moved.incident, approval };
  }

  /** A run that ends while an approval is open leaves nothing anyone could still approve. */
  const offEnded = bus.subscribe('incident.updated', ({ incident }) => {
    if (!isTerminal(incident.state) || !owns(incident.incident_id)) return;
    const stored = incidents.get(incident.incident_id);
    const status = stored?.approval_request?.status;
    if (!stored || (status !== 'pending' && !(status === 'approved' && stored.application.status === 'none'))) return;
    timers.cancelExpiry(incident.incident_id);
    if (move(incident.incident_id, 'supersede', () => ({})).ok) {
      incidents.record(incident.incident_id, entries.approvalSuperseded, `The run ended (${incident.state}); the open approval can no longer be used`);
    }
  });

  return {
    request,
    decide,
    claim,
    /** Which channels a human can answer on (no incident: the relay-wide ones). */
    channels: (incident?: Incident) => channelsFor(incident),
    /** Incidents waiting for a decision, newest first. */
    pending: () =>
      incidents
        .open()
        .filter((i) => i.approval_request?.status === 'pending')
        .sort((a, b) => (b.approval_request?.requested_at ?? '').localeCompare(a.approval_request?.requested_at ?? '')),
    /** After a restart: TTL timers again, undelivered decisions sent, and interrupted applications settled. */
    recover() {
      void deviceGate.recover().catch((error: unknown) => logger.error({ err: error }, 'the held approval requests could not be read'));
      // Another relay's incidents are its own to recover: a relay starting beside it arms nothing for them.
      for (const incident of incidents.open().filter((i) => owns(i.incident_id))) {
        if (incident.approval_request?.status === 'pending') timers.scheduleExpiry(incident);
        if (incident.approval_request?.status === 'approved' && incident.application.status === 'none') timers.scheduleLapse(incident);
        if (incident.application.status === 'claimed') {
          // The relay stopped during the device call: whether the lines reached the device is unknown.
          move(incident.incident_id, 'interrupt', (cur) => ({ application: { ...cur.application, error: 'the relay restarted during the device call; check the device before a new approval' } }));
          incidents.record(incident.incident_id, entries.deviceConfigInterrupted, 'The relay restarted while the approved change was being applied: verify the device; a retry needs a new approval');
        }
        if (incident.approval && !incident.approval.forwarded_at) forward(incident.incident_id);
      }
      // A pass over every stored incident, sorting only the few that have anything left to do.
      const unfinished = [...incidents.values()].filter((i) => i.approval && (!i.approval.forwarded_at || !i.approval.acknowledged_at) && owns(i.incident_id));
      for (const incident of unfinished.sort(newestFirst)) {
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
    /** One person's approval counted toward the pending request's requirement (this relay writes the incident). */
    vote: createVoteRecorder({ incidents, tellRoom }),
    /** The other incident's change a held request waits for, if it is held. */
    heldFor: deviceGate.heldFor,
    stop() {
      offEnded();
      deviceGate.stop();
      forwarder.stop();
      timers.stop();
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
