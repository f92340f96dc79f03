import type { Cluster, ClusterMember, ClusterRelay } from '../../core/cluster/cluster';
import type { QuarantineBackend } from '../../core/quarantine/entry';
import { pgHeldRequests } from '../store-pg/held-repository';
import { pgQuarantine } from '../store-pg/quarantine-repository';
import { createPgOutboxStore } from '../outbox/pg-store';
import type { OutboxStore } from '../outbox/types';
import type { TeamCoordinator } from './coordinator';
import { createTeamConfirms } from './confirms';
import { createTeamDecisions } from './decisions';
import { followTeam } from './follow-team';
import { createForgedRows } from './forged-rows';
import { createTeamVotes } from './votes';

/**
 * The `Cluster` port on the team's database: the database's `owner` column says who owns an
 * incident, the new-incident lock is an advisory lock, deliveries are claimed with SKIP LOCKED,
 * held requests, quarantines and the outbox are tables every relay reads, and a person's decision,
 * approval or confirm is a sealed row (the first wins, counted once) that the owner applies.
 */
export function teamCluster(team: TeamCoordinator, keeps: { quarantineFolder?: QuarantineBackend } = {}): Cluster & { readonly host: string; openOutbox(stream: string): OutboxStore } {
  return {
    relayTag: team.relayId,
    host: team.relayId,
    owns: team.owns,
    mayDeliver: team.mayDeliver,
    claim: team.claim,
    newIncidentLock: team.newIncidentLock,
    leading: team.leading,
    held: pgHeldRequests(team.pool),
    quarantine: pgQuarantine(team.pool),
    ...(keeps.quarantineFolder ? { quarantineFolder: keeps.quarantineFolder } : {}),
    onBeat: team.onBeat,
    openOutbox: (stream) => createPgOutboxStore(team.pool, stream, team.relayId),
    join: (relay) => joinTeam(team, relay),
  };
}

/** This relay on the team: other relays' changes followed, people's actions recorded in the database first. */
function joinTeam(team: TeamCoordinator, relay: ClusterRelay): ClusterMember {
  const { incidents, approvals, logger } = relay;
  const offTeam = followTeam({ team, incidents, dispatcher: relay.dispatcher, clock: relay.clock, agent: relay.agent, logger });
  // Rows in the team database that fail their MAC: never applied, said once on the timeline and standing on /health.
  const forged = createForgedRows({ incidents, logger });
  const votes = createTeamVotes({ team, approvals, incidents, forged, logger });
  const decisions = createTeamDecisions({ team, approvals, incidents, forged, logger, syncVotes: votes.sync });
  const confirms = createTeamConfirms({ team, incidents, logger, forged, confirmLocally: relay.confirmLocally });
  return {
    decide: decisions.decide,
    count: votes.count,
    confirm: confirms.confirm,
    warnings: () => forged.warnings(),
    stop() {
      offTeam();
      decisions.stop();
      votes.stop();
      confirms.stop();
    },
  };
}
