import type { RelayPolicy } from '../policy/relay-policy';
import type { QuarantineEntry } from '../quarantine/entry';
import type { Logger } from 'pino';
import type { AgentRuntime } from '../agent-runtime';
import type { Clock } from '../clock';
import type { Bus } from '../events/bus';
import type { RelayEvents } from '../incidents/events';
import type { Approval, Decision, Incident, PlanEntryRecord } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import type { Owns } from '../incidents/ownership';
import type { DecisionCommand } from './decision-command';
import type { OperatorChannel } from './operator-channel';
import type { ConfigPreview } from '../../runbooks/config-preview';
import type { HeldRequests } from './held-requests';
import type { Standing } from './standing';

/** The approval lifecycle's contract: what channels, the guard and the agents' tools see of it. */

export interface ApprovalRequestInput {
  incident_id: string;
  summary: string;
  device: string;
  commands: string[];
  rollback?: string[];
  artifact_ref?: string;
  /** The relay's own dry run of the lines (never the agent's): stored with the request, shown beside the lines. */
  preview?: ConfigPreview | null;
  /**
   * A change plan (plan-lines.ts): every device's lines, checked by the relay's tools first. Then
   * `device` is the incident's, and `commands`/`preview` are the plan grouped by device.
   */
  plan?: PlanEntryRecord[];
}

export type RequestResult =
  | { status: 'pending'; request_id: string; expires_at: string; channels: string[]; lines_sha256: string; note?: string; approvers_online?: string[]; warning?: string }
  | { status: 'skipped_with_warning'; decision: Decision; warning: string }
  /** The change policy does not allow this change by card: no card was posted, and the run is escalated. */
  | { status: 'escalated_by_policy'; rule: string; reason: string; owner?: string }
  /** The device is quarantined (a change on it could not be put back): no card was posted, and the run is escalated. */
  | { status: 'escalated_quarantined'; device: string; reason: string }
  /** Another incident's change is provisional on the device: the relay asks when it is confirmed or rolled back. */
  | { status: 'held'; device: string; waiting_for: { incident_id: string; change_id: string; deadline: string }; note: string }
  /** A plan's device is quarantined: the relay asks once a person clears it (no card until then). */
  | { status: 'held'; device: string; waiting_for: { quarantined: string; since: string; reason: string }; note: string };

export type DecideResult =
  | { status: 'accepted'; incident: Incident; approval: Approval; standing?: Standing }
  /** An approval counted toward the policy's requirement, which is not reached yet: the request stays pending. */
  | { status: 'recorded'; incident: Incident; standing: Standing }
  /** This person's approval of this request was counted already: counted once, nothing changed. */
  | { status: 'already_approved_by_you'; incident: Incident; standing: Standing }
  /** The policy's rule for this request counts only people in its groups, and this person is in none: nothing changed. */
  | { status: 'not_allowed_by_policy'; incident: Incident; rule: string; groups: string[] }
  | { status: 'already_decided'; incident: Incident; approval: Approval }
  | { status: 'not_awaiting'; incident: Incident }
  /** The decision named a request that is not the one pending (an old card, a stale window): nothing changed. */
  | { status: 'stale_request'; incident: Incident; request_id: string; pending_request_id: string | null }
  | { status: 'unknown_incident' };

/**
 * A decision as the gate's own step, and each step in front of it (the cluster's recording, the
 * policy's counting), take it: the decision command's fields, with its person already resolved into
 * an `Actor` (named-decide.ts). `request_id` is the request the person was shown; every human channel
 * sends it. Without it (the relay's own callers) the pending request is meant. Built by code from a
 * checked command or a sealed row, never parsed from a caller, so it has no schema of its own.
 */
export type OwnerDecision = Omit<DecisionCommand, 'who'> & { actor: Actor };

/** A step behind the relay's one `decide(command)` (decision-command.ts); people never call it. */
export type GateDecide = (decision: OwnerDecision) => DecideResult | Promise<DecideResult>;

/** A claim on the approved lines, taken before the device call; exactly one of them is settled. */
export interface Claim {
  /** What the device is sent: the incident's own device and the lines exactly as approved, never the caller's strings. */
  readonly device: string;
  readonly commands: readonly string[];
  /** A plan's devices and lines exactly as approved, in order (absent for one device). */
  readonly plan?: ReadonlyArray<{ readonly device: string; readonly commands: readonly string[] }>;
  /** The device call returned: the lines are on the device. */
  applied(output: string): void;
  /** The device tool server was never reached: nothing was applied, the approval may be used again. */
  release(why: string): void;
  /** The device call failed after it was sent: the state is unknown, the approval is spent. */
  failed(why: string): void;
  /** Nothing was sent, but the approval no longer holds (the device changed since its preview): it expires. */
  voided(why: string): void;
}
export type ClaimResult = { ok: true; claim: Claim } | { ok: false; reason: string };

export interface Actor {
  /** E-mail or OS user name: who the room and the log will name. */
  id: string;
  display?: string;
  /**
   * The OPERATORS_FILE entry behind the channel's identity (set by named-decide.ts, never by a
   * channel): who counts toward a policy requirement, by their e-mail and their groups.
   */
  person?: { email: string; groups: readonly string[] };
}

/** A tool error the agent can read: says why, changes nothing. */
export class ApprovalError extends Error {
  override readonly name = 'ApprovalError';
}

export interface ApprovalsOptions {
  incidents: Incidents;
  agent: AgentRuntime;
  bus: Bus<RelayEvents>;
  /** The operator channels (Webex, Slack …): asked, told and acknowledged; without any, approvals are unattended unless another channel is live. */
  channels?: readonly OperatorChannel[];
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
  /** Whether this relay owns the incident (the cluster's answer): only the owner arms timers, expires, supersedes and forwards. */
  owns: Owns;
  /** The change policy in force (POLICY_FILE): its verdict comes before any card. */
  policy?: Pick<RelayPolicy, 'verdict' | 'current'>;
  /** How many approvers OPERATORS_FILE lists in any of these groups: a rule nobody can meet is escalated, not asked. */
  approversIn?: (groups: readonly string[]) => number;
  /** Where a request held behind another change on its device is kept across restarts (default: memory). */
  held?: HeldRequests;
  /** The device's quarantine now (src/quarantine): a quarantined device gets no card. */
  quarantined?(device: string): Promise<QuarantineEntry | undefined>;
  /** Told when a person clears a device: a plan held for it is asked then. */
  onCleared?(fn: (entry: QuarantineEntry) => void): () => void;
}
