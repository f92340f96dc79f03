import type { Logger } from 'pino';
import { sameDevice } from '../../core/approvals/claim';
import { canonicalLines } from '../../core/approvals/lines';
import { planAsLines, planHeading, PLAN_DEVICE_MARK } from '../../core/approvals/plan-lines';
import type { ApprovalRequestInput } from '../../core/approvals/types';
import type { ConfigPreview } from '../../runbooks/config-preview';
import type { FoundDevice } from '../../runbooks/plan-devices';
import type { PlanEntryRecord } from '../../core/incidents/model';
import type { Incidents } from '../../core/incidents/service';
import type { PreviewConfig } from './approval-preview';
import { entries as timeline } from '../../core/events/timeline-entries';
import { errorText } from '../../core/error-body';

export interface PlanRequestInput {
  incident_id: string;
  summary: string;
  artifact_ref?: string;
  plan: Array<{ device: string; commands: string[]; rollback?: string[] }>;
}
type Prepared = { ok: true; input: ApprovalRequestInput } | { ok: false; refusal: string };

/** The plan's previews as one, each device's part under its heading: what every channel shows beside the lines. */
function groupedPreview(entries: readonly PlanEntryRecord[]): ConfigPreview | null {
  const previews = entries.map((e) => e.preview);
  if (previews.every((p) => p === null)) return null;
  const part = (pick: (p: ConfigPreview) => string[]) => entries.flatMap((e) => [planHeading(e.device), ...(e.preview ? pick(e.preview) : ['(no preview of this device)'])]);
  const rollbacks = previews.every((p) => p?.rollback);
  return {
    device: entries.map((e) => e.device).join(' + '),
    accepted: true,
    method: previews.find((p) => p)!.method,
    added: part((p) => p.added),
    removed: part((p) => p.removed),
    problems: [],
    ...(rollbacks ? { rollback: { method: previews.every((p) => p!.rollback!.method === 'device_reverts') ? 'device_reverts' as const : 'restore' as const, lines: part((p) => p.rollback!.lines) } } : {}),
  };
}

/**
 * A plan as the agent asks it, checked before any card: every device the incident's own or one its
 * RAW found from the alert and the inventory, none twice, each with lines its own dry run accepts.
 * A refusal says why and nobody is asked; the relay's names for the devices replace the model's.
 */
export async function preparePlan(deps: { incidents: Incidents; logger: Logger; preview?: PreviewConfig; planDevices?(incidentId: string): Promise<FoundDevice[]> }, input: PlanRequestInput): Promise<Prepared> {
  const { incidents } = deps;
  const incident = incidents.get(input.incident_id);
  if (!incident) return { ok: false, refusal: `unknown incident ${input.incident_id}: use the incident_id from the alert prompt` };
  const refuse = (why: string): Prepared => {
    incidents.record(incident.incident_id, timeline.approvalPlanRefused, `Plan not sent for approval: ${why}`.slice(0, 2000), { devices: input.plan.map((e) => e.device.slice(0, 64)), reason: why.slice(0, 500) });
    deps.logger.info({ incident_id: incident.incident_id }, 'plan refused before any card');
    return { ok: false, refusal: `The plan was NOT sent for approval: ${why}` };
  };
  const found = (await deps.planDevices?.(incident.incident_id).catch(() => [])) ?? [];
  const allowed = [incident.device_hostname, ...found.flatMap((f) => ('device' in f ? [f.device] : []))];
  const unfound = found.flatMap((f) => ('problem' in f ? [`${f.role}: ${f.problem}`] : []));
  const entries: PlanEntryRecord[] = [];
  for (const e of input.plan) {
    const name = allowed.find((a) => sameDevice(a, e.device));
    if (!name) return refuse(`${JSON.stringify(e.device.slice(0, 64))} is not a device this plan may change: the RAW for ${incident.alert_def_id} allows ${allowed.join(', ')}${unfound.length ? ` (not found: ${unfound.join('; ')})` : ''}`);
    if (entries.some((x) => sameDevice(x.device, name))) return refuse(`${name} appears twice: give each device once, with all of its lines`);
    if (e.commands.some((l) => PLAN_DEVICE_MARK.test(l))) return refuse(`a line for ${name} starts with "! device", the heading people read between devices: leave it out`);
    if (canonicalLines(e.commands).length === 0) return refuse(`no configuration lines for ${name}`);
    entries.push({ device: name, commands: e.commands, rollback: e.rollback ?? [], preview: null });
  }
  if (entries.length < 2) return refuse('a plan has at least two devices; for one device give device and commands');
  for (const entry of entries) {
    if (!deps.preview) break;
    try {
      entry.preview = await deps.preview(entry.device, entry.commands);
    } catch (error) {
      incidents.record(incident.incident_id, timeline.approvalPreviewUnavailable, `No preview of the plan's change on ${entry.device}: ${errorText(error).slice(0, 500)}`);
      continue;
    }
    if (!entry.preview.accepted) {
      const problems = entry.preview.problems.length ? entry.preview.problems : ['the device refused the lines'];
      incidents.record(incident.incident_id, timeline.approvalPreviewRefused, `Not sent for approval: the dry run on ${entry.device} refused its lines of the plan: ${problems.join('; ')}`.slice(0, 2000), { device: entry.device, commands: entry.commands, problems, method: entry.preview.method });
      return { ok: false, refusal: `The plan was NOT sent for approval: the dry run on ${entry.device} refused its lines: ${problems.join('; ')}. Correct them (or escalate) before requesting approval again.` };
    }
  }
  return {
    ok: true,
    input: {
      incident_id: incident.incident_id,
      summary: input.summary,
      device: incident.device_hostname,
      commands: planAsLines(entries),
      rollback: entries.flatMap((e) => (e.rollback.length ? [planHeading(e.device), ...e.rollback] : [])),
      ...(input.artifact_ref ? { artifact_ref: input.artifact_ref } : {}),
      preview: groupedPreview(entries),
      plan: entries,
    },
  };
}
