import type { Approval, Incident } from '../../../core/incidents/model';
import { inlineMarkdown, markdownCell } from '../../../core/approvals/inert-text';
import { policyNotice } from '../../../core/approvals/standing';
import { describeDecision, hhmm } from '../../../core/approvals/wording';

/** Webex's own words in the room, one for every card submission (relay Markdown, posted as is). */
export const ack = {
  accepted: (incident: Incident, approval: Approval) =>
    `${approval.effective === 'APPROVED' ? '✅' : '⛔'} **${incident.incident_id}** on \`${incident.device_hostname}\`: ${describeDecision(incident, approval)}${approval.reason ? ` (reason: ${inlineMarkdown(approval.reason)})` : ''}.`,
  alreadyDecided: (incident: Incident, approval: Approval, who: string) =>
    `ℹ️ ${who}: **${incident.incident_id}** was already ${approval.decision} by ${approval.by} via ${approval.channel} at ${hhmm(approval.at)}; this click changed nothing.`,
  /** An approval counted toward the policy's requirement, a second one by the same person, or one from outside its groups. */
  policy: (incident: Incident, result: Parameters<typeof policyNotice>[0], who: string) => `🗳️ ${who}, **${incident.incident_id}**: ${markdownCell(policyNotice(result))}`,
  notAllowed: (who: string) => `🚫 ${who} is not allowed to approve configuration changes (MSG_APPROVERS); nothing changed.`,
  otherRoom: (who: string) => `🚫 A card submission by ${who} came from another room and was refused; nothing changed.`,
  ambiguous: (alertDefId: string, candidates: Incident[], who: string) =>
    `⚠️ ${who}: ${candidates.length} incidents of ${alertDefId} are awaiting approval (${candidates.map((i) => `**${i.incident_id}** on \`${i.device_hostname}\``).join(', ')}); this card does not say which, so nothing was decided. Use the card of the incident you mean.`,
  staleCard: (incident: Incident, who: string) =>
    `⚠️ ${who}: that card was for an earlier approval request of **${incident.incident_id}**; nothing was decided.${
      incident.approval_request?.status === 'pending' ? ` Request ${incident.approval_request.request_id} is pending now: decide on its own card.` : ''
    }`,
  noActive: (alertDefId: string, incidentId: string | undefined, who: string) =>
    `ℹ️ ${who}: no active incident is awaiting approval for ${incidentId ?? alertDefId}; nothing resumed.`,
};
