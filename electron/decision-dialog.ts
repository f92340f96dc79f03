import { visibleLines } from '../src/core/approvals/visible-text';
import { AGENT_SUMMARY_LABEL, quotedPlain } from '../src/core/approvals/inert-text';
import type { MessageBoxOptions } from 'electron';
import type { Decision, Incident } from '../src/core/incidents/model';
import { shortHash } from '../src/core/approvals/lines';
import { planViewOf, planViewText } from '../src/core/approvals/plan-view';

/**
 * The confirmation behind the tray's Approve… / Deny…: the exact commands, and Cancel as the
 * default so a stray Enter changes nothing on a device.
 */
export function decisionDialogOptions(incident: Pick<Incident, 'incident_id' | 'device_hostname' | 'approval_request'>, decision: Decision): MessageBoxOptions {
  const request = incident.approval_request;
  const verb = decision === 'APPROVED' ? 'Approve' : 'Deny';
  const shown = visibleLines(request?.commands ?? []);
  // A plan is read per device (its lines, preview and rollback), as on every other channel.
  const plan = planViewOf(request);
  const lines = plan
    ? planViewText(plan, '  ')
    : [`Commands (exactly these, once; lines ${shortHash(request?.lines_sha256 ?? '')}, request ${request?.request_id ?? '?'}):`, ...shown.lines.map((c) => `  ${c}`), ...(shown.warning ? ['', shown.warning] : [])];
  return {
    type: decision === 'APPROVED' ? 'warning' : 'question',
    title: `${verb} ${incident.incident_id}`,
    message: plan ? `${verb} the plan over ${plan.devices.map((d) => d.device).join(', ')}?` : `${verb} the change on ${request?.device ?? incident.device_hostname}?`,
    // The lines first, as the device receives them (odd characters escaped, with a warning), the agent's summary last.
    detail: [
      ...lines,
      ...(request?.summary ? ['', `${AGENT_SUMMARY_LABEL}:`, quotedPlain(request.summary)] : []),
    ].join('\n'),
    buttons: [verb, 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    noLink: true,
  };
}
