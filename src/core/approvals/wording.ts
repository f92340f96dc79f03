import type { Approval, Incident } from '../incidents/model';
import { requestRequirementLine, standingOf, standingWords } from './standing';

export function formatTtl(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** A decision's time as every channel shows it: hours and minutes, UTC. */
export const hhmm = (iso: string) => `${iso.slice(11, 16)} UTC`;

/** The outcome of a decision in the relay's words, the same on every channel; each channel frames it in its own sentence. */
export function describeDecision(incident: Incident, approval: Approval): string {
  const what = approval.effective === 'APPROVED' ? `applying ${approval.commands.length} command(s)` : 'nothing will be applied; escalating';
  const request = incident.approval_request;
  // Under the policy: the rule and everyone whose approval counted, not only the last one.
  const policy = request?.requirement && request.request_id === approval.request_id ? `; ${standingWords(standingOf(request))} (${requestRequirementLine(request)})` : '';
  return `${approval.decision} by ${approval.by} via ${approval.channel} at ${hhmm(approval.at)}${policy}: ${what}`;
}
