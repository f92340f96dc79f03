import type { ApprovalVote, Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import { markdownCell } from './inert-text';
import { requirementLine, standingOf, type Standing } from './standing';
import { entries } from '../events/timeline-entries';

export type VoteResult = { status: 'counted' | 'duplicate'; incident: Incident; standing: Standing } | { status: 'not_pending' };

/**
 * One person's approval counted toward the pending request's requirement, stored with the request
 * (one per person, in the order they came) and named on the timeline as `approval.vote`. Only the
 * relay that writes the incident calls this; a team relay counts in the database first (team/votes.ts).
 */
export function createVoteRecorder(deps: { incidents: Pick<Incidents, 'get' | 'update' | 'record'>; tellRoom?(incidentId: string, markdown: string): void }) {
  const { incidents } = deps;
  return function vote(incidentId: string, requestId: string, vote: ApprovalVote): VoteResult {
    const incident = incidents.get(incidentId);
    const request = incident?.approval_request;
    if (!incident || !request || request.status !== 'pending' || request.request_id !== requestId || !request.requirement) return { status: 'not_pending' };
    if (request.votes?.some((v) => v.by === vote.by)) return { status: 'duplicate', incident, standing: standingOf(request) };
    const next = incidents.update(incidentId, (cur) => ({
      approval_request: cur.approval_request && cur.approval_request.request_id === requestId ? { ...cur.approval_request, votes: [...(cur.approval_request.votes ?? []), vote] } : cur.approval_request,
    }));
    const counted = next.approval_request!;
    const standing = standingOf(counted);
    const line = requirementLine(counted.requirement!, counted.votes ?? []);
    incidents.record(incidentId, entries.approvalVote, `Approval by ${vote.by} via ${vote.channel} counted: ${line}`, { request_id: requestId, by: vote.by, channel: vote.channel, given: standing.given, needed: standing.needed });
    if (standing.given < standing.needed) deps.tellRoom?.(incidentId, `🗳️ **${incidentId}** on \`${incident.device_hostname}\`: ${markdownCell(line)}. Still pending.`);
    return { status: 'counted', incident: next, standing };
  };
}
export type VoteRecorder = ReturnType<typeof createVoteRecorder>;
