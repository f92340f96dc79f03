import type { Clock } from '../clock';
import type { ApprovalRequirement, ApprovalVote, Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import { countsToward, type Standing } from './standing';
import type { GateDecide } from './types';
import type { VoteRecorder } from './votes';

/** Counts one approval where this relay counts (in memory, or in the team database): once per person. */
export type CountVote = (incident: Incident, vote: ApprovalVote, requirement: ApprovalRequirement) => Promise<{ status: 'counted' | 'duplicate'; standing: Standing; incident?: Incident } | { status: 'not_pending' }>;

/** A relay alone counts in the incident it writes (votes.ts). */
export const countInIncident = (vote: VoteRecorder): CountVote => async (incident, v) => vote(incident.incident_id, incident.approval_request!.request_id, v);

/**
 * Decisions under the change policy's requirement (recorded with the request by policy-gate.ts):
 * only a person in the rule's groups counts, each person once, and the request is approved only
 * when `count` distinct people approved; a DENIED from any of them denies it. Sits between the
 * channels (after named-decide.ts, which says who the person is) and the gate's own `decide`.
 */
export function policyDecide(deps: { decide: GateDecide; count: CountVote; incidents: Pick<Incidents, 'get'>; clock: Clock }): GateDecide {
  const { decide, count, incidents, clock } = deps;
  return async (input) => {
    const { incident_id: incidentId, decision, actor, channel, request_id: requestId } = input;
    const incident = incidents.get(incidentId);
    const request = incident?.approval_request;
    const requirement = request?.status === 'pending' && (requestId === undefined || requestId === request.request_id) ? request.requirement : null;
    // No requirement, a stale or decided request, or one past its time: the gate's own answer.
    if (!incident || !request || !requirement || Date.parse(request.expires_at) <= clock.now().getTime()) return decide(input);
    if (!actor.person || !countsToward(requirement, actor.person.groups)) return { status: 'not_allowed_by_policy', incident, rule: requirement.rule, groups: requirement.groups };
    // From here on the decision names the pending request (the caller named it, or none).
    const onPending = { ...input, request_id: request.request_id };
    if (decision === 'DENIED') return decide(onPending);
    const counted = await count(incident, { by: actor.person.email, name: actor.id, channel, at: clock.now().toISOString() }, requirement);
    if (counted.status === 'not_pending') return decide(onPending);
    const now = counted.incident ?? incidents.get(incidentId) ?? incident;
    if (counted.status === 'duplicate') return { status: 'already_approved_by_you', incident: now, standing: counted.standing };
    if (counted.standing.given < counted.standing.needed) return { status: 'recorded', incident: now, standing: counted.standing };
    const result = await decide(onPending);
    return result.status === 'accepted' ? { ...result, standing: counted.standing } : result;
  };
}
