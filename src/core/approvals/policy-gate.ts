import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import type { RelayPolicy } from '../policy/relay-policy';
import type { ApprovalRequirement } from '../incidents/model';
import type { ApprovalRequestInput, RequestResult } from './types';
import { linesSha256 } from './lines';
import { requestVerdict } from './plan-verdict';
import { entries } from '../events/timeline-entries';

/** The gate's answer: the change is refused (escalated or denied, no card), or asked with this requirement. */
export type PolicyGateResult = { refused: RequestResult } | { requirement: ApprovalRequirement };

export function createPolicyGate(deps: {
  policy: Pick<RelayPolicy, 'verdict' | 'current'>;
  incidents: Incidents;
  clock: Clock;
  logger: Logger;
  tellRoom(incidentId: string, markdown: string): void;
  approversIn: (groups: readonly string[]) => number;
}) {
  const { policy, incidents, clock, logger, tellRoom } = deps;
  /**
   * The policy's verdict, before any card: a change it does not allow by card (escalate, deny, or
   * nobody to ask for the groups it names) ends the run escalated, naming the rule, and no card is
   * posted anywhere. An allowed one is recorded with its requirement and goes on to the channels.
   */
  return function policyGate(incident: Incident, input: ApprovalRequestInput, live: string[]): PolicyGateResult {
    const verdict = requestVerdict(policy, incident, input, clock.now());
    const { sha256 } = policy.current();
    const unasked = verdict.kind === 'approve' && live.length === 0;
    // A card nobody listed may approve would only wait for its expiry: the rule's owner is told now.
    const unstaffed = verdict.kind === 'approve' && !unasked && deps.approversIn(verdict.groups) < verdict.count;
    if (verdict.kind === 'approve' && !unasked && !unstaffed) {
      incidents.record(incident.incident_id, entries.policyVerdict, `Policy ${verdict.rule}: ${verdict.reason}`, { rule: verdict.rule, groups: verdict.groups, count: verdict.count, policy_sha256: sha256, lines_sha256: linesSha256(input.commands) });
      return { requirement: { rule: verdict.rule, groups: verdict.groups, count: verdict.count, reason: verdict.reason, policy_sha256: sha256 } };
    }
    const reason = unasked
      ? `${verdict.rule} needs ${verdict.reason}, and no approval channel is live to ask them`
      : unstaffed
        ? `${verdict.rule} needs ${verdict.reason}, and OPERATORS_FILE lists ${deps.approversIn(verdict.groups)} approver(s) in those groups`
        : verdict.reason;
    const owner = verdict.kind === 'escalate' ? verdict.owner : undefined;
    const at = clock.now().toISOString();
    const summary = `Escalated by the change policy (${verdict.rule}): ${reason}.${owner ? ` Escalate to ${owner}.` : ''} No card was posted and nothing was applied.`;
    incidents.record(incident.incident_id, entries.policyEscalated, summary, { rule: verdict.rule, verdict: verdict.kind, ...(owner ? { owner } : {}), policy_sha256: sha256, lines_sha256: linesSha256(input.commands) });
    incidents.transition(incident.incident_id, 'escalate', () => ({ outcome: { kind: 'escalated', summary, at } }));
    logger.warn({ incident_id: incident.incident_id, rule: verdict.rule, verdict: verdict.kind }, 'change escalated by the policy; no card posted');
    tellRoom(incident.incident_id, `🛑 **${incident.incident_id}** on \`${incident.device_hostname}\`: ${summary}`);
    return { refused: { status: 'escalated_by_policy', rule: verdict.rule, reason, ...(owner ? { owner } : {}) } };
  };
}
