import type { Approval, Incident } from '../incidents/model';

/**
 * The prompt that resumes the run after a decision. The agent must act on
 * `decision` only, and may apply exactly `approved_commands` and nothing else.
 */
export function humanOperatorResponse(incident: Incident, approval: Approval): string {
  const body = {
    incident_id: incident.incident_id,
    alert_def_id: incident.alert_def_id,
    device: incident.approval_request?.device ?? incident.device_hostname,
    decision: approval.effective,
    recorded_as: approval.decision,
    decided_by: approval.by,
    channel: approval.channel,
    decided_at: approval.at,
    reason: approval.reason ?? null,
    approved_commands: approval.effective === 'APPROVED' ? approval.commands : [],
  };
  const instruction =
    approval.effective === 'APPROVED'
      ? 'HUMAN OPERATOR RESPONSE: APPROVED. Apply exactly approved_commands through the device tools, then wait, revalidate and report the outcome.'
      : approval.decision === 'EXPIRED'
        ? 'HUMAN OPERATOR RESPONSE: EXPIRED. No operator decided in time: apply nothing, escalate per the escalation path and send the final notification.'
        : 'HUMAN OPERATOR RESPONSE: DENIED. Apply nothing: escalate per the escalation path and report the outcome.';
  return `${instruction}\n${JSON.stringify(body, null, 2)}`;
}
