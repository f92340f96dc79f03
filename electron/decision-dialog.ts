import { visibleLines } from '../src/core/approvals/visible-text';
import { AGENT_SUMMARY_LABEL, quotedPlain } from '../src/core/approvals/inert-text';
import type { MessageBoxOptions } from 'electron';
import type { Decision, Incident } from '../src/core/incidents/model';
import { shortHash } from '../src/core/approvals/lines';

/**
 * The confirmation behind the tray's Approve… / Deny…: the exact commands, and Cancel as the
 * default so a stray Enter changes nothing on a device.
 */
export function decisionDialogOptions(incident: Pick<Incident, 'incident_id' | 'device_hostname' | 'approval_request'>, decision: Decision): MessageBoxOptions {
  const request = incident.approval_request;
  const verb = decision === 'APPROVED' ? 'Approve' : 'Deny';
  const shown = visibleLines(request?.commands ?? []);
  return {
    type: decision === 'APPROVED' ? 'warning' : 'question',
    title: `${verb} ${incident.incident_id}`,
    message: `${verb} the change on ${request?.device ?? incident.device_hostname}?`,
    // The lines first, as the device receives them (odd characters escaped, with a warning), the agent's summary last.
    detail: [
      `Commands (exactly these, once; lines ${shortHash(request?.lines_sha256 ?? '')}, request ${request?.request_id ?? '?'}):`,
      ...shown.lines.map((c) => `  ${c}`),
      ...(shown.warning ? ['', shown.warning] : []),
      ...(request?.summary ? ['', `${AGENT_SUMMARY_LABEL}:`, quotedPlain(request.summary)] : []),
    ].join('\n'),
    buttons: [verb, 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    noLink: true,
  };
}
