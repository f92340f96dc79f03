import type { Logger } from 'pino';
import type { Approvals, DecideResult, OwnerDecision } from '../../core/approvals/approvals';
import type { Incidents } from '../../core/incidents/service';
import { StoreUnavailableError } from '../../core/incidents/store';
import { databaseErrorMessage } from '../store-pg/database';
import type { TeamCoordinator } from './coordinator';
import type { DecisionRow } from '../store-pg/team-repository';
import type { ApprovalRequest } from '../../core/incidents/model';
import type { ForgedRows } from './forged-rows';

import { DECISION_CHANNEL } from './change-listener';
export { DECISION_CHANNEL } from './change-listener';


/**
 * Decisions on a team relay: the first decision on an approval request wins in the database
 * (its primary key), on whichever relay it arrived; the relay that runs the incident applies it,
 * at once when that is this relay, else when told by NOTIFY. Only a human channel reaches here:
 * the run's own relay decides nothing on the model's word, exactly as on the laptop.
 */
export function createTeamDecisions(deps: { team: TeamCoordinator; approvals: Pick<Approvals, 'decide' | 'acknowledge'>; incidents: Pick<Incidents, 'get'>; forged: ForgedRows; logger: Logger; syncVotes?: (incidentId: string) => Promise<void> }) {
  const { team, approvals, incidents, forged, logger } = deps;
  // Approvals counted on other relays reach this copy of the request before a decision is applied to it.
  const syncVotes = deps.syncVotes ?? (async () => {});
  const repo = team.repo;
  /** The MAC a row for `request` must carry: the request and its lines as this relay holds them, the row's own words. */
  const macFor = (row: Pick<DecisionRow, 'incident_id' | 'decision' | 'by_name' | 'decided_at' | 'channel' | 'comment'>, request: ApprovalRequest) =>
    team.seal.decision({ ...row, request_id: request.request_id, lines_sha256: request.lines_sha256 });
  const verified = (row: DecisionRow, request: ApprovalRequest) => team.seal.verifies(macFor(row, request), row.mac);

  async function apply(row: DecisionRow): Promise<void> {
    const request = incidents.get(row.incident_id)?.approval_request;
    if (!request || request.requested_at !== row.requested_at) return;
    if (!verified(row, request)) return forged.report('decision', row.incident_id, row.requested_at, row.mac, true);
    await syncVotes(row.incident_id);
    const result = approvals.decide({ incident_id: row.incident_id, decision: row.decision, actor: { id: row.by_name }, channel: row.channel, ...(row.comment !== null ? { reason: row.comment } : {}), request_id: request.request_id });
    // A no-op unless the decision came from an operator channel (only those leave `acknowledged_at` empty).
    if (result.status === 'accepted') await approvals.acknowledge(row.incident_id).catch(() => {});
    if (result.status !== 'accepted') logger.info({ incident_id: row.incident_id, status: result.status }, 'a decision from another relay found nothing to decide');
  }

  const offNotified = team.onDecision(async (incidentId, requestedAt, kind) => {
    if (kind !== 'decision' || !team.owns(incidentId)) return;
    const row = await repo.decisionFor(incidentId, requestedAt);
    if (row) await apply(row);
  });
  // A notification is lost when the listener reconnects: each heartbeat looks for recorded
  // decisions on this relay's incidents that still wait.
  const offSwept = team.onBeat(async () => {
    const rows = await repo.waitingDecisions(team.relayId);
    for (const row of rows) if (team.owns(row.incident_id)) await apply(row);
  });
  const off = () => {
    offNotified();
    offSwept();
  };

  return {
    async decide(input: OwnerDecision): Promise<DecideResult> {
      const { incident_id: incidentId, decision, actor, channel, reason, request_id: requestId } = input;
      const incident = incidents.get(incidentId);
      if (!incident) return { status: 'unknown_incident' };
      const request = incident.approval_request;
      if (requestId !== undefined && requestId !== request?.request_id) {
        return { status: 'stale_request', incident, request_id: requestId, pending_request_id: request?.status === 'pending' ? request.request_id : null };
      }
      if (incident.approval && request?.status !== 'pending') return { status: 'already_decided', incident, approval: incident.approval };
      if (!request || request.status !== 'pending') return { status: 'not_awaiting', incident };
      const at = new Date().toISOString();
      const fields = { incident_id: incidentId, requested_at: request.requested_at, decision, by_name: actor.id, channel, comment: reason ?? null, decided_at: at, received_by: team.relayId };
      const row = { ...fields, mac: macFor(fields, request) };
      let inserted: boolean;
      try {
        inserted = await repo.recordDecision(row);
        const first = inserted ? undefined : await repo.decisionFor(incidentId, request.requested_at);
        if (first && !verified(first, request)) {
          // A row nobody of this team signed holds the request's place: it decides nothing and gives way.
          forged.report('decision', incidentId, request.requested_at, first.mac, team.owns(incidentId));
          await repo.dropDecision(first);
          inserted = await repo.recordDecision(row);
        }
        if (!inserted) {
          const winner = (await repo.decisionFor(incidentId, request.requested_at)) as DecisionRow;
          return {
            status: 'already_decided',
            incident,
            approval: { decision: winner.decision, effective: winner.decision, by: winner.by_name, channel: winner.channel, at: winner.decided_at, commands: request.commands, forwarded_at: null, acknowledged_at: null, request_id: request.request_id, apply_by: null },
          };
        }
        await repo.notify(DECISION_CHANNEL, { i: incidentId, q: request.requested_at });
      } catch (error) {
        throw new StoreUnavailableError(`the decision could not be recorded: the incident database is not reachable: ${databaseErrorMessage(error)}`);
      }
      if (team.owns(incidentId)) {
        await syncVotes(incidentId);
        const local = approvals.decide({ ...input, request_id: request.request_id });
        // This decision won in the database; the owner may already have applied it from its own NOTIFY.
        // Its caller is told it won, never 409 about itself.
        if (local.status === 'already_decided' && local.approval.by === actor.id && local.approval.decision === decision && local.approval.channel === channel) {
          return { status: 'accepted', incident: local.incident, approval: local.approval };
        }
        return local;
      }
      // The incident is the owner's to write: it records the decision when it applies it (one line, by the owner).
      logger.info({ incident_id: incidentId, decision, by: actor.id, channel }, 'decision recorded; the relay running the incident applies it');
      return {
        status: 'accepted',
        incident,
        approval: { decision, effective: decision, by: actor.id, channel, at, commands: request.commands, forwarded_at: null, acknowledged_at: null, request_id: request.request_id, apply_by: null },
      };
    },
    stop: off,
  };
}
