import { z } from 'zod';
import type { Incident, TimelineEntry } from './model';
import { entries, isEntry } from '../events/timeline-entries';

/** What the change policy said about the incident's change, and who counted toward it. */
export const evidencePolicySchema = z.object({
  /** approve: asked with a requirement; escalate or deny: no card was posted. */
  verdict: z.string(),
  /** The class (and freeze, or change record) that gave the verdict. */
  rule: z.string(),
  reason: z.string(),
  /** SHA-256 of the policy file in force when the verdict was given. */
  policy_sha256: z.string(),
  groups: z.array(z.string()),
  /** How many distinct approvals the rule needed; null for a verdict that asked nobody. */
  needed: z.number().int().nullable(),
  /** Every approval counted toward it, with where and when. */
  approvers: z.array(z.object({ by: z.string(), channel: z.string(), at: z.string() })),
});
export type EvidencePolicy = z.infer<typeof evidencePolicySchema>;

const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** From the request's recorded requirement, else from the escalation the policy recorded; null when no policy judged the change. */
export function policyOf(incident: Incident, timeline: readonly TimelineEntry[]): EvidencePolicy | null {
  const request = incident.approval_request;
  if (request?.requirement) {
    const r = request.requirement;
    return { verdict: 'approve', rule: r.rule, reason: r.reason, policy_sha256: r.policy_sha256, groups: r.groups, needed: r.count, approvers: (request.votes ?? []).map((v) => ({ by: v.by, channel: v.channel, at: v.at })) };
  }
  const escalated = [...timeline].reverse().find((e) => isEntry(e, entries.policyEscalated));
  if (!escalated) return null;
  return { verdict: text(escalated.verdict) || 'escalate', rule: text(escalated.rule), reason: escalated.message, policy_sha256: text(escalated.policy_sha256), groups: [], needed: null, approvers: [] };
}
