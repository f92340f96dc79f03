import type { Logger } from 'pino';
import type { Approvals } from '../../core/approvals/approvals';
import type { CountVote } from '../../core/approvals/policy-decide';
import { StoreUnavailableError } from '../../core/incidents/store';
import type { ApprovalRequest } from '../../core/incidents/model';
import type { Incidents } from '../../core/incidents/service';
import { databaseErrorMessage } from '../store-pg/database';
import type { VoteRow } from '../store-pg/team-repository';
import type { TeamCoordinator } from './coordinator';
import { DECISION_CHANNEL } from './decisions';
import type { ForgedRows } from './forged-rows';

/**
 * Approvals toward a policy requirement on a team: counted in the database, once per person,
 * whichever relay each arrived at (team-repository.ts `recordVote`), and told to the relay that
 * owns the incident, which records each on the incident (`approval.vote`) once its MAC verifies.
 */
export function createTeamVotes(deps: { team: TeamCoordinator; approvals: Pick<Approvals, 'vote'>; incidents: Pick<Incidents, 'get'>; forged: ForgedRows; logger: Logger }) {
  const { team, approvals, incidents, forged, logger } = deps;
  const repo = team.repo;
  const macFor = (row: Pick<VoteRow, 'incident_id' | 'by_name' | 'channel' | 'voted_at'>, request: ApprovalRequest) =>
    team.seal.vote({ incident_id: row.incident_id, request_id: request.request_id, lines_sha256: request.lines_sha256, by_name: row.by_name, channel: row.channel, voted_at: row.voted_at });

  /** The owner's copy of the request takes every verified vote it does not hold yet (a row nobody of the team signed counts nothing). */
  async function sync(incidentId: string): Promise<void> {
    const request = incidents.get(incidentId)?.approval_request;
    if (!request?.requirement || request.status !== 'pending') return;
    for (const row of await repo.votesFor(incidentId, request.requested_at)) {
      if (request.votes?.some((v) => v.by === row.by_name)) continue;
      if (!team.seal.verifies(macFor(row, request), row.mac)) {
        forged.report('decision', incidentId, `${row.requested_at} vote ${row.by_name}`, row.mac, true);
        continue;
      }
      approvals.vote(incidentId, request.request_id, { by: row.by_name, channel: row.channel, at: row.voted_at });
    }
  }

  const off = team.onDecision(async (incidentId, _requestedAt, kind) => {
    if (kind === 'vote' && team.owns(incidentId)) await sync(incidentId);
  });

  const count: CountVote = async (incident, vote) => {
    const request = incident.approval_request!;
    const fields = { incident_id: incident.incident_id, requested_at: request.requested_at, by_name: vote.by, channel: vote.channel, voted_at: vote.at };
    let given: number | null;
    try {
      given = await repo.recordVote({ ...fields, received_by: team.relayId, mac: macFor(fields, request) });
      if (given === null) {
        const rows = await repo.votesFor(incident.incident_id, request.requested_at);
        return { status: 'duplicate', standing: { given: rows.length, needed: request.requirement!.count } };
      }
      await repo.notify(DECISION_CHANNEL, { i: incident.incident_id, q: request.requested_at, k: 'vote' });
    } catch (error) {
      throw new StoreUnavailableError(`the approval could not be counted: the incident database is not reachable: ${databaseErrorMessage(error)}`);
    }
    if (team.owns(incident.incident_id)) await sync(incident.incident_id);
    else logger.info({ incident_id: incident.incident_id, by: vote.by, given }, 'approval counted; the relay running the incident records it');
    return { status: 'counted', standing: { given, needed: request.requirement!.count } };
  };

  return { count, sync, stop: off };
}
