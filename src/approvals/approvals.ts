import type { Logger } from 'pino';
import type { AgentRuntime } from '../agent/types';
import type { Clock } from '../clock';
import type { Bus } from '../events/bus';
import type { RelayEvents } from '../incidents/events';
import { isTerminal, NO_APPLICATION, publicIncident, type Approval, type ApprovalRequest, type Decision, type Incident } from '../incidents/model';
import type { IncidentChange, Incidents } from '../incidents/service';
import type { IncidentEvent } from '../incidents/state';
import { ownsEverything, type Owns } from '../incidents/ownership';
import { approvalFallbackMarkdown, buildApprovalCard } from '../messaging/approval-card';
import { createDecisionForwarder } from './forwarder';
import { transition, type DecisionChannel, type GateEvent, type GatePhase } from './lifecycle';
import { canonicalLines, linesSha256, shortHash } from './lines';
import type { OperatorRoom } from './operator-room';
import { evidenceOf } from './evidence';
import { ack, describeDecision, formatTtl } from './wording';
import { newRequestId } from './request-id';

export interface ApprovalRequestInput {
  incident_id: string;
  summary: string;
  device: string;
  commands: string[];
  rollback?: string[];
  artifact_ref?: string;
}

export type RequestResult =
  | { status: 'pending'; request_id: string; expires_at: string; channels: string[]; lines_sha256: string; note?: string; approvers_online?: string[]; warning?: string }
  | { status: 'skipped_with_warning'; decision: Decision; warning: string };

export type DecideResult =
  | { status: 'accepted'; incident: Incident; approval: Approval }
  | { status: 'already_decided'; incident: Incident; approval: Approval }
  | { status: 'not_awaiting'; incident: Incident }
  /** The decision named a request that is not the one pending (an old card, a stale window): nothing changed. */
  | { status: 'stale_request'; incident: Incident; request_id: string; pending_request_id: string | null }
  | { status: 'unknown_incident' };

/**
 * `decide` as the channels call it: a team relay records the decision in its database first.
 * `requestId` is the request the person was shown; every human channel sends it. Without it (the
 * relay's own tests and tools) the pending request is meant.
 */
export type DecideFn = (incidentId: string, decision: Decision, actor: Actor, channel: DecisionChannel, reason?: string, requestId?: string) => DecideResult | Promise<DecideResult>;

/** A claim on the approved lines, taken before the device call; exactly one of them is settled. */
export interface Claim {
  /** What the device is sent: the incident's own device and the lines exactly as approved, never the caller's strings. */
  readonly device: string;
  readonly commands: readonly string[];
  /** The device call returned: the lines are on the device. */
  applied(output: string): void;
  /** The device tool server was never reached: nothing was applied, the approval may be used again. */
  release(why: string): void;
  /** The device call failed after it was sent: the state is unknown, the approval is spent. */
  failed(why: string): void;
}
export type ClaimResult = { ok: true; claim: Claim } | { ok: false; reason: string };

export interface Actor {
  /** E-mail or OS user name: who the room and the log will name. */
  id: string;
  display?: string;
}

/** A tool error the agent can read: says why, changes nothing. */
export class ApprovalError extends Error {
  override readonly name = 'ApprovalError';
}

export interface ApprovalsOptions {
  incidents: Incidents;
  agent: AgentRuntime;
  bus: Bus<RelayEvents>;
  room?: OperatorRoom;
  /** Other live channels (the tray's desktop notification); named in the `pending` answer. */
  extraChannels?: () => string[];
  /** Approvers following the relay right now (trays on /events): said in the `pending` answer. */
  approversOnline?: () => string[];
  ttlMs: number;
  /** How long an APPROVED change may wait to be applied (APPROVAL_APPLY_WINDOW); default the TTL. */
  applyWindowMs?: number;
  /** Headed runs: writes the approval question into the operator's terminal session (the relay, never the model). */
  showInTerminal?: (incident: Incident) => Promise<void>;
  whenUnattended: 'approve' | 'deny';
  /** The run's agent: opencode answers a prompt without one with its default agent (build), not the session's. */
  agentName?: string;
  clock: Clock;
  logger: Logger;
  /** Team relays: only the owner arms timers, expires, supersedes and forwards (src/incidents/ownership.ts). */
  owns?: Owns;
}

const phaseOf = (incident: Incident): GatePhase => ({
  approval: incident.approval_request?.status ?? 'none',
  application: incident.application.status,
});
const sameDevice = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The approval lifecycle: the only code that moves an incident's gate (lifecycle.ts holds the
 * table). Every channel decides through `decide()`, the device guard applies through `claim()`.
 */
export function createApprovals(opts: ApprovalsOptions) {
  const { incidents, agent, bus, room, clock, logger } = opts;
  const expiryTimers = new Map<string, { cancel(): void }>();
  const lapseTimers = new Map<string, { cancel(): void }>();
  const applyWindowMs = opts.applyWindowMs ?? opts.ttlMs;
  const owns = opts.owns ?? ownsEverything;
  const forwarder = createDecisionForwarder({ incidents, agent, agentName: opts.agentName, clock, logger, owns });
  const forward = forwarder.forward;

  /** The channels a human can answer on for this incident; the terminal only for a headed run. */
  const channelsFor = (incident?: Incident) => [
    ...(incident?.kind === 'headed' ? ['terminal'] : []),
    ...(room ? ['webex'] : []),
    ...(opts.extraChannels?.() ?? []),
  ];

  /**
   * Moves the gate by one event of the table and stores the result with `patch`, in one
   * synchronous step: nothing can interleave between the check and the write.
   */
  function move(
    incidentId: string,
    event: GateEvent,
    patch: (cur: Incident) => IncidentChange,
    /** The incident's own state event that goes with this step (src/incidents/state.ts), if any. */
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
      const request = (changes.approval_request === undefined ? cur.approval_request : changes.approval_request) as ApprovalRequest | null;
      return {
        ...changes,
        approval_request: request ? { ...request, status: step.next.approval === 'none' ? request.status : step.next.approval } : request,
        application: { ...(changes.application ?? cur.application), status: step.next.application },
      };
    });
    return { ok: true, incident };
  }

  const tellRoom = (incidentId: string, markdown: string) => {
    if (!room) return;
    room.postMarkdown(markdown).catch((error: unknown) => {
      logger.error({ incident_id: incidentId, err: error }, 'could not post to the operator room');
      incidents.record(incidentId, 'room.error', `Could not post to the room: ${(error as Error).message}`);
    });
  };

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
    incidents.record(incidentId, 'approval.lapsed', text, { request_id: moved.incident.approval_request?.request_id });
    logger.warn({ incident_id: incidentId }, 'approved change not applied within the apply window; approval expired');
  }

  function expire(incidentId: string, requestedAt: string) {
    expiryTimers.delete(incidentId);
    const current = incidents.get(incidentId);
    if (!current || current.approval_request?.requested_at !== requestedAt || !owns(incidentId)) return;
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
    if (!moved.ok) return;
    incidents.record(incidentId, 'approval.expired', summary);
    logger.warn({ incident_id: incidentId }, 'approval expired; incident escalated');
    bus.publish('approval.decided', { incident: publicIncident(moved.incident), approval });
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
    const incident = validateRequest(input);
    const live = channelsFor(incident);
    if (live.length === 0) return skipUnattended(incident, input);

    const now = clock.now();
    const expires_at = new Date(now.getTime() + opts.ttlMs).toISOString();
    const lines_sha256 = linesSha256(input.commands);
    const request_id = newRequestId();
    const moved = move(incident.incident_id, 'request', () => ({
      approval: null,
      application: NO_APPLICATION,
      approval_request: {
        request_id,
        terminal_shown_at: null,
        summary: input.summary,
        device: incident.device_hostname,
        commands: input.commands,
        rollback: input.rollback ?? [],
        artifact_ref: input.artifact_ref,
        requested_at: now.toISOString(),
        expires_at,
        status: 'pending',
        lines_sha256,
        channels: live,
      },
    }), 'request_approval');
    if (!moved.ok) throw new ApprovalError(moved.reason);
    let next = moved.incident;
    incidents.record(next.incident_id, 'approval.requested', `Approval ${request_id} requested for ${input.commands.length} command(s) on ${next.device_hostname} (lines ${shortHash(lines_sha256)})`, {
      request_id,
      commands: input.commands,
      channels: live,
      lines_sha256,
    });
    scheduleExpiry(next);
    bus.publish('approval.requested', { incident: publicIncident(next), request: next.approval_request! });

    if (room) {
      const cardInput = {
        incident_id: next.incident_id,
        request_id,
        alert_def_id: next.alert_def_id,
        device: next.device_hostname,
        summary: input.summary,
        commands: input.commands,
        rollback: input.rollback,
        artifact_ref: input.artifact_ref,
        expires_at,
        lines_sha256,
        evidence: evidenceOf(incidents.timeline(next.incident_id)),
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

  /**
   * A headed run's question is written into the operator's terminal session by the relay itself:
   * what the operator reads there is the relay's record of the request, never the model's retelling.
   * Typed decisions count only once it has been shown (routes/headed-terminal.ts).
   */
  async function showHeadedQuestion(incident: Incident) {
    if (!opts.showInTerminal || !incident.session_id) {
      incidents.record(incident.incident_id, 'approval.not_shown', 'The headed run has no terminal session on this relay: decide in the tray, at /ui or over the API');
      return;
    }
    try {
      await opts.showInTerminal(incident);
      const at = clock.now().toISOString();
      const requestId = incident.approval_request?.request_id;
      incidents.update(incident.incident_id, (cur) => ({
        approval_request: cur.approval_request && cur.approval_request.request_id === requestId ? { ...cur.approval_request, terminal_shown_at: at } : cur.approval_request,
      }));
      incidents.record(incident.incident_id, 'approval.shown', `Request ${requestId} shown to the operator in the terminal UI`, { request_id: requestId });
    } catch (error) {
      logger.warn({ incident_id: incident.incident_id, err: error }, 'could not show the approval question in the terminal');
      incidents.record(incident.incident_id, 'approval.not_shown', `The question could not be shown in the terminal (${(error as Error).message}): decide in the tray, at /ui or over the API`);
    }
  }

  function skipUnattended(incident: Incident, input: ApprovalRequestInput): RequestResult {
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
    const request: ApprovalRequest = {
      request_id: newRequestId(),
      terminal_shown_at: null,
      summary: input.summary,
      device: incident.device_hostname,
      commands: input.commands,
      rollback: input.rollback ?? [],
      artifact_ref: input.artifact_ref,
      requested_at: at,
      expires_at: at,
      status: 'pending',
      lines_sha256: linesSha256(input.commands),
      channels: [],
    };
    approval.request_id = request.request_id;
    if (effective === 'APPROVED') approval.apply_by = new Date(Date.parse(at) + applyWindowMs).toISOString();
    const asked = move(incident.incident_id, 'request', () => ({ approval: null, application: NO_APPLICATION, approval_request: request }));
    if (!asked.ok) throw new ApprovalError(asked.reason);
    const decided = move(incident.incident_id, effective === 'APPROVED' ? 'approve' : 'deny', (cur) => ({
      approval,
      warnings: [...cur.warnings, `approval_skipped: ${warning}`],
    }));
    if (!decided.ok) throw new ApprovalError(decided.reason);
    incidents.record(incident.incident_id, 'approval.skipped', warning, { decision: effective, commands: input.commands });
    logger.warn({ incident_id: incident.incident_id, decision: effective }, `approval skipped: ${warning}`);
    bus.publish('approval.decided', { incident: publicIncident(decided.incident), approval });
    return { status: 'skipped_with_warning', decision: effective, warning };
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

    const at = clock.now().toISOString();
    // The operator typed it in the run's own terminal: the agent has read it there already.
    const toldInSession = channel === 'terminal';
    const approval: Approval = {
      decision,
      effective: decision,
      by: actor.id,
      channel,
      at,
      reason: reason?.trim() ? reason.trim().slice(0, 500) : undefined,
      commands: incident.approval_request.commands,
      forwarded_at: toldInSession ? at : null,
      acknowledged_at: channel === 'webex' ? null : at,
      request_id: incident.approval_request.request_id,
      apply_by: decision === 'APPROVED' ? new Date(Date.parse(at) + applyWindowMs).toISOString() : null,
    };
    // Stored before anything is said or sent: a crash after this still forwards it on restart.
    const moved = move(incidentId, decision === 'APPROVED' ? 'approve' : 'deny', () => ({ approval }), toldInSession ? 'decide_in_session' : decision === 'APPROVED' ? 'approve' : 'deny');
    if (!moved.ok) return { status: 'not_awaiting', incident };
    expiryTimers.get(incidentId)?.cancel();
    expiryTimers.delete(incidentId);
    incidents.record(incidentId, 'approval.decided', describeDecision(moved.incident, approval), { decision, by: actor.id, channel });
    logger.info({ incident_id: incidentId, decision, by: actor.id, channel }, 'approval decided');
    bus.publish('approval.decided', { incident: publicIncident(moved.incident), approval });
    if (approval.apply_by) scheduleLapse(moved.incident);
    if (!toldInSession) forward(incidentId);
    return { status: 'accepted', incident: moved.incident, approval };
  }

  /**
   * The device guard's only way to apply configuration: the lines (by their hash) and the device
   * must be the approved ones, and the claim is stored before the device is called.
   */
  function claim(incidentId: string, device: string, commands: string[]): ClaimResult {
    const incident = incidents.get(incidentId);
    if (!incident) return { ok: false, reason: `unknown incident ${incidentId}` };
    if (isTerminal(incident.state)) return { ok: false, reason: `${incidentId} is already ${incident.state}; no configuration` };
    const request = incident.approval_request;
    if (request?.status === 'approved' && incident.application.status === 'none' && lapsed(incident)) {
      lapse(incidentId);
      return { ok: false, reason: `the approval lapsed: it was not applied within ${formatTtl(applyWindowMs)} of the decision (APPROVAL_APPLY_WINDOW); request a new approval` };
    }
    if (request && request.status === 'approved') {
      if (!sameDevice(device, request.device)) return { ok: false, reason: `the approval covers ${request.device}, not ${device}` };
      const approvedHash = request.lines_sha256 || linesSha256(request.commands);
      if (linesSha256(commands) !== approvedHash) {
        return { ok: false, reason: `only the approved lines may be applied, verbatim and in order (lines ${shortHash(approvedHash)}): ${request.commands.join(' / ')}` };
      }
    }
    const at = clock.now().toISOString();
    const claimed = move(incidentId, 'claim', () => ({ application: { status: 'claimed', device: request?.device ?? device, at, error: null } }));
    if (!claimed.ok) return claimed;
    let settled = false;
    const settle = (event: 'applied' | 'release' | 'fail', error: string | null) => {
      if (settled) return;
      settled = true;
      const result = move(incidentId, event, (cur) => ({ application: { ...cur.application, at: clock.now().toISOString(), error } }));
      if (!result.ok) logger.error({ incident_id: incidentId, event }, `approval claim could not be settled: ${result.reason}`);
    };
    return {
      ok: true,
      claim: {
        device: request?.device ?? incident.device_hostname,
        commands: request?.commands ?? commands,
        applied: () => settle('applied', null),
        release: (why) => settle('release', why),
        failed: (why) => settle('fail', why),
      },
    };
  }

  /** A run that ends while an approval is open leaves nothing anyone could still approve. */
  const offEnded = bus.subscribe('incident.updated', ({ incident }) => {
    if (!isTerminal(incident.state) || !owns(incident.incident_id)) return;
    const stored = incidents.get(incident.incident_id);
    const status = stored?.approval_request?.status;
    if (!stored || (status !== 'pending' && !(status === 'approved' && stored.application.status === 'none'))) return;
    expiryTimers.get(incident.incident_id)?.cancel();
    expiryTimers.delete(incident.incident_id);
    if (move(incident.incident_id, 'supersede', () => ({})).ok) {
      incidents.record(incident.incident_id, 'approval.superseded', `The run ended (${incident.state}); the open approval can no longer be used`);
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
      // Another relay's incidents are its own to recover: a relay starting beside it arms nothing for them.
      for (const incident of incidents.open().filter((i) => owns(i.incident_id))) {
        if (incident.approval_request?.status === 'pending') scheduleExpiry(incident);
        if (incident.approval_request?.status === 'approved' && incident.application.status === 'none') scheduleLapse(incident);
        if (incident.application.status === 'claimed') {
          // The relay stopped during the device call: whether the lines reached the device is unknown.
          move(incident.incident_id, 'interrupt', (cur) => ({ application: { ...cur.application, error: 'the relay restarted during the device call; check the device before a new approval' } }));
          incidents.record(incident.incident_id, 'device.config_interrupted', 'The relay restarted while the approved change was being applied: verify the device; a retry needs a new approval');
        }
        if (incident.approval && !incident.approval.forwarded_at) forward(incident.incident_id);
      }
      for (const incident of incidents.list().filter((i) => owns(i.incident_id))) {
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
    stop() {
      offEnded();
      forwarder.stop();
      for (const t of [...expiryTimers.values(), ...lapseTimers.values()]) t.cancel();
      expiryTimers.clear();
      lapseTimers.clear();
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
