import { isTerminal, type Incident } from '../incidents/model';
import { newestFirst } from '../incidents/store';
import { createDecisionForwarder } from './forwarder';
import { entries } from '../events/timeline-entries';
export * from './types';
import type { ApprovalsOptions } from './types';
import { createGateMove } from './gate-move';
import { createAsk } from './ask';
import { createGateDecide } from './gate-decide';
import { createApprovalTimers } from './timers';
import { createUnattended } from './unattended';
import { createPolicyGate } from './policy-gate';
import { createPolicyRecheck } from './policy-recheck';
import { createClaim } from './claim';
import { createVoteRecorder } from './votes';
import { createRoom } from './room';
import { createDeviceGate } from './device-gate';

/**
 * The approval lifecycle: the only code that moves an incident's gate (lifecycle.ts holds the
 * table). The relay's one `decide(command)` ends in its `decide()` on the incident's owner; the device
 * guard applies through `claim()`.
 */
export function createApprovals(opts: ApprovalsOptions) {
  const { incidents, agent, bus, clock, logger } = opts;
  const channels = opts.channels ?? [];
  // A decision made on one of these is acknowledged there; the relay's own sources need no message.
  const channelNames = new Set(channels.map((c) => c.name));
  const applyWindowMs = opts.applyWindowMs ?? opts.ttlMs;
  const owns = opts.owns;
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
  const deviceGate = createDeviceGate({ incidents, bus, clock, logger, tellRoom, owns, ...(opts.quarantined ? { quarantined: opts.quarantined } : {}), ...(opts.onCleared ? { onCleared: opts.onCleared } : {}), ...(opts.held ? { store: opts.held } : {}), ask: (input) => request(input) });
  const skipUnattended = createUnattended({ incidents, move, bus, clock, logger, whenUnattended: opts.whenUnattended, applyWindowMs });

  const request = createAsk({ incidents, move, timers, bus, clock, logger, channels, channelsFor, deviceGate, policyGate, skipUnattended, ttlMs: opts.ttlMs, approversOnline: opts.approversOnline, showInTerminal: opts.showInTerminal });
  const decide = createGateDecide({ incidents, move, timers, bus, clock, logger, applyWindowMs, channelNames, forward });

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
    /** What a held request waits for (another incident's change, or a quarantined device's clear), if it is held. */
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

/**
 * The gate as seen from outside the relay's composition (the tray, tests, benches): its pending list
 * and what a held request waits for, plus the agent's tool's `request` and the device guard's `claim`,
 * which tests stand in for. Never its `decide`: people decide through the relay's one
 * `decide(command)`, which records a decision where the cluster records it before the owner applies it.
 */
export type ApprovalsView = Pick<Approvals, 'request' | 'pending' | 'heldFor' | 'claim'>;
