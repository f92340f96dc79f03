import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Incident } from '../incidents/model';
import type { Incidents } from '../incidents/service';
import type { RelayPolicy } from '../policy/relay-policy';
import type { GateMove } from './gate-move';
import { entries, isEntry } from '../events/timeline-entries';
import { requestVerdict } from './plan-verdict';

/** The rule the pending request was approved under: the policy gate's verdict, recorded when it was asked. */
function approvedUnder(incidents: Incidents, incidentId: string): string | undefined {
  const entry = incidents.timeline(incidentId).filter((e) => isEntry(e, entries.policyVerdict)).at(-1);
  return typeof entry?.rule === 'string' ? entry.rule : undefined;
}

/**
 * The policy again, when the approved change is about to be applied: a change approved before a
 * freeze began, before a change record's window opened, or now outside its class's hours is not
 * applied. Neither is one the policy now puts under another rule (a freeze's own requirement): the
 * approval was not given under that one. Such an approval expires, the run ends escalated naming the
 * rule (as at request time), and the answer is why. Undefined: the change may go on. A plan is
 * checked on every one of its devices, as at request time: the strictest verdict holds for all.
 */
export function createPolicyRecheck(deps: { policy: Pick<RelayPolicy, 'verdict' | 'current'>; incidents: Incidents; move: GateMove; clock: Clock; logger: Logger; tellRoom(incidentId: string, markdown: string): void }) {
  const { policy, incidents, move, clock, logger, tellRoom } = deps;
  return function recheck(incident: Incident): string | undefined {
    const request = incident.approval_request;
    if (request?.status !== 'approved') return undefined;
    const verdict = requestVerdict(policy, incident, request, clock.now());
    const under = approvedUnder(incidents, incident.incident_id);
    const holds = verdict.kind === 'approve' && (under === undefined || under === verdict.rule);
    const kind = holds ? 'approve' : verdict.kind === 'approve' ? 'escalate' : verdict.kind;
    const { sha256 } = policy.current();
    const owner = verdict.kind === 'escalate' ? verdict.owner : undefined;
    const base = { rule: verdict.rule, verdict: kind, ...(under ? { approved_under: under } : {}), ...(owner ? { owner } : {}), policy_sha256: sha256 };
    if (holds) {
      incidents.record(incident.incident_id, entries.policyRechecked, `Policy checked again at apply time: ${verdict.rule} still allows the approved change`, base);
      return undefined;
    }
    const why = verdict.kind === 'approve' ? `the approval was given under ${under}, and now ${verdict.rule} applies, which needs ${verdict.reason}` : verdict.reason;
    const summary = `Not applied: the change policy, checked again at apply time, does not allow it now (${verdict.rule}): ${why}. The approval expired and nothing was sent to ${request.plan ? `any of the plan's devices (${request.plan.map((e) => e.device).join(', ')})` : request.device}.${owner ? ` Escalate to ${owner}.` : ''}`;
    const at = clock.now().toISOString();
    const moved = move(incident.incident_id, 'lapse', () => ({ outcome: { kind: 'escalated', summary, at } }), 'escalate');
    if (!moved.ok) return moved.reason;
    incidents.record(incident.incident_id, entries.policyRechecked, summary, base);
    logger.warn({ incident_id: incident.incident_id, rule: verdict.rule, verdict: kind }, 'approved change not applied: the policy no longer allows it');
    tellRoom(incident.incident_id, `🛑 **${incident.incident_id}** on \`${incident.device_hostname}\`: ${summary}`);
    return `${summary} Apply nothing; the run is escalated.`;
  };
}
