import type { Logger } from 'pino';
import type { ConfigPreview } from '../../runbooks/config-preview';
import { sameDevice } from '../../core/approvals/claim';
import type { Incidents } from '../../core/incidents/service';
import { entries } from '../../core/events/timeline-entries';
import { errorText } from '../../core/error-body';

/** The device tools' dry run, injected by the relay (src/relay/create-relay.ts): the domain imports no device server. */
export type PreviewConfig = (device: string, commands: string[]) => Promise<ConfigPreview>;

export type PreviewOutcome = { ok: true; preview: ConfigPreview | null } | { ok: false; refusal: string };

/**
 * The dry run before an approval is requested, always on the incident's own
 * device. A refusal ends the request here: nobody is asked to approve lines the device refuses, the
 * agent is told why and the timeline records it. A device that cannot be asked (unreachable, a
 * server without `preview_config`) is not a refusal: the request goes on without a preview and the
 * timeline says why. Without device tools there is no preview at all (null).
 */
export async function previewBeforeApproval(
  deps: { incidents: Incidents; logger: Logger; preview?: PreviewConfig },
  input: { incident_id: string; device: string; commands: string[] },
): Promise<PreviewOutcome> {
  const incident = deps.incidents.get(input.incident_id);
  // Requests approvals.request refuses anyway (unknown incident, not running, another device) are not dry-run.
  if (!deps.preview || !incident || incident.state !== 'running' || !sameDevice(input.device, incident.device_hostname)) return { ok: true, preview: null };
  const device = incident.device_hostname;
  let preview: ConfigPreview;
  try {
    preview = await deps.preview(device, input.commands);
  } catch (error) {
    const why = errorText(error).slice(0, 500);
    deps.logger.warn({ incident_id: incident.incident_id, err: why }, 'no preview of the change: the device tools could not dry-run it');
    deps.incidents.record(incident.incident_id, entries.approvalPreviewUnavailable, `No preview of the change on ${device}: ${why}`);
    return { ok: true, preview: null };
  }
  if (preview.accepted) return { ok: true, preview };
  const problems = preview.problems.length ? preview.problems : ['the device refused the lines'];
  deps.incidents.record(incident.incident_id, entries.approvalPreviewRefused, `Not sent for approval: the dry run on ${device} refused the lines: ${problems.join('; ')}`.slice(0, 2000), {
    commands: input.commands,
    problems,
    method: preview.method,
  });
  deps.logger.info({ incident_id: incident.incident_id, problems }, 'approval not requested: the dry run refused the lines');
  return {
    ok: false,
    refusal: `The dry run on ${device} refused these lines, so they were NOT sent for approval: ${problems.join('; ')}. Correct the lines (or escalate) before requesting approval again.`,
  };
}
