import { createApprovals } from '../core/approvals/approvals';
import { createChannelHost } from '../core/approvals/channel-host';
import { ConfirmCommand, type ConfirmFn, type DecideFn } from '../core/approvals/decision-command';
import { evidenceOf } from '../core/approvals/evidence';
import { namedDecide } from '../core/approvals/named-decide';
import { policyDecide } from '../core/approvals/policy-decide';
import { terminalQuestion } from '../core/approvals/terminal-question';
import type { ConfirmLocally } from '../core/cluster/cluster';
import type { Dispatcher } from '../core/delivery/dispatcher';
import type { Incident } from '../core/incidents/model';
import { traceChannelDecisions } from '../adapters/telemetry/traced-decisions';
import { messagingHealth } from './health-checks';
import { createHeadedIntake, type HeadedIntakeDeps } from './headed-intake';
import { openQuarantine } from './open-quarantine';
import { openConfiguredPolicy } from './policy-setup';
import type { RelayDeps } from './relay-contract';
import type { RelayFoundation } from './relay-parts';

/**
 * The approval gate and what it asks on: the operator channels, the change policy, the device
 * quarantines and the headed terminal.
 */
export async function relayGate(f: RelayFoundation, deps: RelayDeps, planDevicesFor: PlanDevicesFor) {
  const { config, incidents, agent, bus, clock, logger, operators, cluster } = f;
  // The relay writes into a headed run's terminal session itself: what the operator reads there is the
  // relay's record (lines, device, hash, request id), never the model's retelling of it.
  const tellTerminal = async (incident: Incident, text: string) => {
    if (!incident.session_id) throw new Error('no terminal session is bound to this incident');
    await agent.promptAsync(incident.session_id, { agent: config.AGENT_NAME, text, noReply: true });
  };
  // The operator channels, each built by its own adapter (src/adapters/channels/index.ts): asked in this order.
  const channels = deps.channels ?? [];
  // Each channel with a socket says how it stands, through the port; a team follower stands by.
  const messaging = deps.messaging ?? (() => messagingHealth(channels, deps.standby?.() ?? false));
  const configured = openConfiguredPolicy(config, logger, (c) => f.late.audit?.configChanged('policy', c));
  const policy = configured?.policy;
  if (configured) {
    // A policy file inside the project is shipped like the agent files: runs are held while it differs.
    f.runGate.hold(configured.heldBecause);
    f.laterWarnings.add(configured.warnings);
  }
  // Devices whose change could not be put back: no card and no configuration until a person clears them.
  const quarantine = await openQuarantine({ incidents, clock, logger, tell: (id, md) => approvals.tellRoom(id, md), cluster });
  const approvals = createApprovals({
    ...(policy ? { policy } : {}),
    quarantined: quarantine.check,
    onCleared: quarantine.onCleared,
    held: cluster.held,
    incidents,
    agent,
    bus,
    applyWindowMs: config.APPROVAL_APPLY_WINDOW ?? config.APPROVAL_TTL,
    showInTerminal: (incident) => tellTerminal(incident, terminalQuestion(incident, evidenceOf(incidents.timeline(incident.incident_id)))),
    channels,
    // Approvers in OPERATORS_FILE decide over the API and from their trays: a live channel, never unattended.
    extraChannels: () => [...(operators && operators.approvers() > 0 ? ['api'] : []), ...(deps.extraChannels?.() ?? [])],
    ...(operators ? { approversOnline: () => f.presence.approvers(), approversIn: (groups: readonly string[]) => operators.approversIn?.(groups) ?? 0 } : {}),
    ttlMs: config.APPROVAL_TTL,
    owns: cluster.owns,
    whenUnattended: config.APPROVAL_WHEN_UNATTENDED,
    agentName: config.AGENT_NAME,
    clock,
    logger,
  });
  const startHeaded = createHeadedIntake({ incidents, mode: config.REMEDIATION_MODE, logger, planDevicesFor });
  return { tellTerminal, channels, messaging, policy, quarantine, approvals, startHeaded };
}
/** Where a plan's other devices are found for an alert (the relay's changes, once they exist). */
type PlanDevicesFor = NonNullable<HeadedIntakeDeps['planDevicesFor']>;
export type RelayGate = Awaited<ReturnType<typeof relayGate>>;

/**
 * The relay's one `decide` and one `confirm`, whatever door a person came in by: recorded where the
 * cluster records them (exactly once), applied by the incident's owner. A listed person is named by
 * OPERATORS_FILE on any channel; under a policy requirement only its groups count, each person once.
 */
export function relayDecisions(f: RelayFoundation, gate: RelayGate, relay: { dispatcher: Dispatcher; confirmLocally?: ConfirmLocally }) {
  const { incidents, clock, logger, operators } = f;
  const { approvals, channels } = gate;
  const confirmLocally: ConfirmLocally = relay.confirmLocally ?? (async (id) => ({ ok: false, code: 'no_change', message: `${id} has no change this relay applied` }));
  const member = f.cluster.join({ incidents, approvals, dispatcher: relay.dispatcher, agent: f.agent, confirmLocally, clock, logger });
  f.laterWarnings.add(() => member.warnings());
  const decide: DecideFn = namedDecide(policyDecide({ decide: member.decide, count: member.count, incidents, clock }), operators);
  // Every channel hands its people's decisions to the one `decide` above.
  const host = traceChannelDecisions(createChannelHost({ approvals, decide, incidents, channels, logger }), (id) => incidents.get(id));
  for (const channel of channels) channel.attach(host);
  // Only a relay that applies changes has any to keep.
  const confirm: ConfirmFn | undefined = relay.confirmLocally ? async (input) => {
    const command = ConfirmCommand.parse(input);
    return member.confirm(command.incident_id, command.change_id, command.who.id);
  } : undefined;
  return { decide, confirm, stop: member.stop };
}
