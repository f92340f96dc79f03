import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Bus } from '../events/bus';
import { errorText } from '../error-body';
import { entries } from '../events/timeline-entries';
import type { RelayEvents } from '../incidents/events';
import { NO_APPLICATION, publicIncident, type Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import { sameDevice } from './claim';
import type { createDeviceGate } from './device-gate';
import { evidenceOf } from './evidence';
import type { GateMove } from './gate-move';
import { canonicalLines, shortHash } from './lines';
import type { ApprovalAsk, OperatorChannel } from './operator-channel';
import { pendingRequest } from './pending-request';
import type { createPolicyGate } from './policy-gate';
import { requestRequirementLine } from './standing';
import type { createApprovalTimers } from './timers';
import { ApprovalError, type ApprovalRequestInput, type RequestResult } from './types';
import type { createUnattended } from './unattended';

/** What asking for an approval uses of the gate. */
interface AskDeps {
  incidents: Incidents;
  move: GateMove;
  timers: ReturnType<typeof createApprovalTimers>;
  bus: Bus<RelayEvents>;
  clock: Clock;
  logger: Logger;
  channels: readonly OperatorChannel[];
  channelsFor(incident?: Incident): string[];
  deviceGate: Pick<ReturnType<typeof createDeviceGate>, 'gate'>;
  policyGate: ReturnType<typeof createPolicyGate> | undefined;
  skipUnattended: ReturnType<typeof createUnattended>;
  ttlMs: number;
  approversOnline?: (() => string[]) | undefined;
  showInTerminal?: ((incident: Incident) => Promise<void>) | undefined;
}

/**
 * An agent's request for approval: checked, held behind the device's own gate, refused or escalated
 * by the change policy, skipped when nobody can be asked, else asked on every channel at once (and
 * in a headed run's terminal), with its TTL armed.
 */
export function createAsk(deps: AskDeps) {
  const { incidents, move, timers, bus, clock, logger, channels, channelsFor, deviceGate, policyGate, skipUnattended } = deps;
  const opts = deps;
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
      next = await askEverywhere(deps, next, ask);
    }
    if (next.kind === 'headed') await showHeadedQuestion(deps, next);
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

  return request;
}

/** Asks on every channel at once; each message id is kept under its channel's name for the adapter. */
async function askEverywhere(deps: AskDeps, incident: Incident, ask: ApprovalAsk): Promise<Incident> {
  const { channels, logger, incidents } = deps;
  const results = await Promise.allSettled(channels.map((c) => c.ask(ask)));
  const posted: Record<string, string> = {};
  results.forEach((r, i) => {
    const channel = channels[i]!;
    if (r.status === 'fulfilled') {
      posted[channel.name] = r.value.message_id;
      return;
    }
    logger.error({ incident_id: incident.incident_id, channel: channel.name, err: r.reason }, 'approval card could not be posted');
    incidents.record(incident.incident_id, entries.roomError, `Approval card could not be posted${channels.length > 1 ? ` on ${channel.name}` : ''}: ${errorText(r.reason)}`);
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
async function showHeadedQuestion(deps: AskDeps, incident: Incident) {
  const { incidents, clock, logger } = deps;
  const opts = deps;
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
    incidents.record(incident.incident_id, entries.approvalNotShown, `The question could not be shown in the terminal (${errorText(error)}): decide in the tray, at /ui or over the API`);
  }
}
