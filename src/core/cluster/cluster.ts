import type { Logger } from 'pino';
import type { AgentRuntime } from '../agent-runtime';
import type { Approvals, GateDecide } from '../approvals/approvals';
import type { HeldRequests } from '../approvals/held-requests';
import type { CountVote } from '../approvals/policy-decide';
import type { ConfirmResult } from '../changes/confirmed-apply';
import type { Clock } from '../clock';
import type { Dispatcher } from '../delivery/dispatcher';
import type { Owns } from '../incidents/ownership';
import type { Incidents } from '../incidents/service';
import type { QuarantineBackend } from '../quarantine/entry';

/**
 * The `Cluster` port: what differs between a relay alone (the laptop: `laptop.ts`) and relays that
 * share one database (the team: src/adapters/team/team-cluster.ts). The domain asks it, never
 * whether it is on a team: who owns an incident, whether a new fault may be created now, who
 * delivers a queued alert, and where a person's decision, approval or confirm is recorded exactly
 * once before the owner applies it.
 */
export interface Cluster {
  /** This relay among the relays sharing its incidents: tags its spare session. */
  readonly relayTag: string;
  /** Whether this relay acts on an incident (arms its timers, forwards, applies): a laptop owns all. */
  readonly owns: Owns;
  /** Whether this relay may deliver a queued incident now. */
  mayDeliver(incidentId: string): boolean;
  /** Takes a queued incident for delivery: exactly one relay gets `true`. */
  claim(incidentId: string): Promise<boolean>;
  /** Runs `fn` while no other relay creates an incident for the same fault (a laptop just runs it). */
  newIncidentLock<T>(dedupKey: string, fn: () => Promise<T>): Promise<T>;
  /** Whether this relay holds the team's leadership now (a laptop never: /metrics reads 0). */
  leading(): boolean;
  /** Where requests held behind another change are kept across restarts. */
  readonly held: HeldRequests;
  /** Where quarantined devices are kept, and how often they are read again (what other relays quarantined). */
  readonly quarantine: QuarantineBackend;
  /** Where a quarantine is written first when `quarantine` is shared (a team relay's data folder), kept until `quarantine` has it. */
  readonly quarantineFolder?: QuarantineBackend;
  /** Runs `task` with each heartbeat of the cluster (a laptop has none); until the returned function is called. */
  onBeat(task: () => Promise<void>): () => void;
  /** This relay's part in the cluster, once its domain exists: recording people's actions, following the others. */
  join(relay: ClusterRelay): ClusterMember;
}

/** The owner's own confirm of a provisional change (src/core/changes/confirmed-apply.ts), by a person. */
export type ConfirmLocally = (incidentId: string, changeId: string, person: string) => Promise<ConfirmResult>;

/** What a relay's domain gives its cluster: the incidents, the gate, and the steps the owner takes itself. */
export interface ClusterRelay {
  incidents: Incidents;
  approvals: Pick<Approvals, 'decide' | 'acknowledge' | 'vote'>;
  dispatcher: Dispatcher;
  agent: Pick<AgentRuntime, 'abort'>;
  confirmLocally: ConfirmLocally;
  clock: Clock;
  logger: Logger;
}

/** How this relay records what people do, so that each counts once whichever relay it reached. */
export interface ClusterMember {
  /** A decision on the gate: recorded (the first wins) and applied by the incident's owner. */
  decide: GateDecide;
  /** One approval toward a policy requirement, counted once per person. */
  count: CountVote;
  /** A person's confirm of a provisional change: recorded and applied by the incident's owner. */
  confirm: ConfirmLocally;
  /** What stands on /health about the cluster (rows that fail their seal …). */
  warnings(): string[];
  stop(): void;
}
