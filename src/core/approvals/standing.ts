import type { ApprovalRequest, ApprovalRequirement, ApprovalVote } from '../incidents/model';
import { visibleText } from './inert-text';

/**
 * How a request stands against the change policy's requirement, in the relay's own words, for
 * every channel alike. The rule and the groups come from the policy file and the names from
 * OPERATORS_FILE (both the operators' own), and are still shown escaped: nothing here is styled.
 */
export interface Standing {
  given: number;
  needed: number;
}

export const standingOf = (request: Pick<ApprovalRequest, 'requirement' | 'votes'>): Standing => ({
  given: request.votes?.length ?? 0,
  needed: request.requirement?.count ?? 1,
});

/** What a caller is told after their decision: "approved: 2 of 2" or "recorded: 1 of 2". */
export const standingWords = (s: Standing) => `${s.given >= s.needed ? 'approved' : 'recorded'}: ${s.given} of ${s.needed}`;

/** "SC-BGP-01 in freeze year-end: 2 approvals from change-manager, tier2 — 1 given, by ana@example.com". */
export function requirementLine(requirement: ApprovalRequirement, votes: readonly Pick<ApprovalVote, 'by'>[]): string {
  const need = `${requirement.count} approval${requirement.count > 1 ? 's' : ''} from ${requirement.groups.join(', ')}`;
  const given = votes.length ? `${votes.length} given, by ${votes.map((v) => v.by).join(', ')}` : 'none given yet';
  return visibleText(`${requirement.rule}: ${need} — ${given}`);
}

/** The line for a request, or undefined when no policy requirement is recorded with it. */
export const requestRequirementLine = (request: Pick<ApprovalRequest, 'requirement' | 'votes'> | null | undefined) =>
  request?.requirement ? requirementLine(request.requirement, request.votes ?? []) : undefined;

/** Whether a person in `groups` counts toward the requirement. */
export const countsToward = (requirement: ApprovalRequirement, groups: readonly string[]) => groups.some((g) => requirement.groups.includes(g));

/** What a person is told when their decision counted toward the requirement, or did not: the same words on every channel. */
export function policyNotice(
  result:
    | { status: 'recorded' | 'already_approved_by_you'; standing: Standing; incident: { approval_request: Pick<ApprovalRequest, 'requirement' | 'votes'> | null } }
    | { status: 'not_allowed_by_policy'; rule: string; groups: string[] },
): string {
  if (result.status === 'not_allowed_by_policy') {
    return visibleText(`not allowed by the change policy: ${result.rule} counts approvals only from ${result.groups.join(', ')}, and you are in none of these groups. Nothing changed.`);
  }
  const line = requestRequirementLine(result.incident.approval_request);
  const where = line ? ` (${line})` : '';
  if (result.status === 'already_approved_by_you') return `you approved this request already; it counts once: ${standingWords(result.standing)}${where}. Nothing changed.`;
  const more = result.standing.needed - result.standing.given;
  return `your approval is counted: ${standingWords(result.standing)}${where}. The request stays pending until ${more} more approve${more === 1 ? 's' : ''}.`;
}
