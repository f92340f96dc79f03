import type { Approval, Incident } from '../../../core/incidents/model';
import { markdownCell } from '../../../core/approvals/inert-text';
import { policyNotice } from '../../../core/approvals/standing';
import { describeDecision, hhmm } from '../../../core/approvals/wording';

/**
 * Slack's own words: replies to a click (ephemeral, to the person who clicked) and the outcome on
 * the decided message. Written in the relay's Markdown; slack-channel.ts turns it into mrkdwn.
 * The reason is never part of the outcome here: Slack shows it as plain text of its own.
 */
export const say = {
  outcome: (incident: Incident, approval: Approval) =>
    `${approval.effective === 'APPROVED' ? '✅' : '⛔'} **${incident.incident_id}** on \`${incident.device_hostname}\`: ${describeDecision(incident, approval)}.`,
  alreadyDecided: (incident: Incident, approval: Approval, who: string) =>
    `ℹ️ ${who}: **${incident.incident_id}** was already ${approval.decision} by ${approval.by} via ${approval.channel} at ${hhmm(approval.at)}; this click changed nothing.`,
  policy: (incident: Incident, result: Parameters<typeof policyNotice>[0], who: string) => `🗳️ ${who}, **${incident.incident_id}**: ${markdownCell(policyNotice(result))}`,
  notAllowed: (who: string) => `🚫 ${who} is not allowed to approve configuration changes (OPERATORS_FILE); nothing changed.`,
  otherApp: (who: string) => `🚫 A click by ${who} came from another app or workspace and was refused; nothing changed.`,
  staleMessage: (incident: Incident, who: string) =>
    `⚠️ ${who}: that message was for an earlier approval request of **${incident.incident_id}**; nothing was decided.${
      incident.approval_request?.status === 'pending' ? ` Request ${incident.approval_request.request_id} is pending now: decide on its own message.` : ''
    }`,
  noActive: (incidentId: string, who: string) => `ℹ️ ${who}: no active incident is awaiting approval for ${incidentId}; nothing resumed.`,
};
