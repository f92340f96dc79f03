import { z } from 'zod';
import { planViewOf } from '../approvals/plan-view';
import { quarantineKey } from '../quarantine/entry';
import { changeOutcomeText } from './change';
import type { Incident } from './model';

/**
 * The change plan of an incident a person takes over by hand (`/headed/from/:id`), as the relay
 * recorded it: every device with its approved lines, how it stands now and the relay's rollback of
 * it. Nothing here is the model's text except `agents_summary`, quoted under its label.
 */
export const handedOverPlanSchema = z.object({
  from_incident: z.string(),
  request_id: z.string(),
  /** The plan's one hash over every device's lines. */
  lines_sha256: z.string(),
  /** The request as the relay's gate has it: pending, approved, denied, expired or superseded. */
  request_status: z.string(),
  devices: z.array(
    z.object({
      /** Checked against the inventory's name format (else a placeholder). */
      device: z.string(),
      /** Exactly the lines approved (or asked for) on this device. */
      lines: z.array(z.string()),
      /** How the device stands: its change as the relay recorded it, or why nothing was applied. */
      state: z.string(),
      change_id: z.string().nullable(),
      /** The relay's own rollback of this device, computed from the configuration before. */
      rollback: z.array(z.string()),
    }),
  ),
  agents_summary: z.object({ label: z.string(), text: z.string() }),
});
export type HandedOverPlan = z.infer<typeof handedOverPlanSchema>;

const AGENTS_SUMMARY_LABEL = "the agents' own summary when they asked, quoted: not checked by the relay";

/** Why a device of the plan has no change, from the request's state. */
function notApplied(incident: Incident): string {
  const status = incident.approval_request?.status;
  if (status === 'pending') return 'not applied: the plan awaits its approval';
  if (status === 'approved') {
    return incident.application.status === 'none' ? 'not applied: approved, not applied yet' : `not applied: the plan was not applied on every device (${incident.application.status}); see the incident's timeline`;
  }
  return `not applied: the request was ${status ?? 'never made'}`;
}

/** The incident's plan (pending or applied) for a person taking it over, or undefined when its change is not a plan. */
export function handedOverPlan(incident: Incident): HandedOverPlan | undefined {
  const request = incident.approval_request;
  const view = planViewOf(request);
  if (!request?.plan || !view) return undefined;
  const changes = incident.plan_changes ?? [];
  return {
    from_incident: incident.incident_id,
    request_id: request.request_id,
    lines_sha256: request.lines_sha256,
    request_status: request.status,
    devices: view.devices.map((d, i) => {
      const change = changes.find((c) => quarantineKey(c.device) === quarantineKey(request.plan![i]!.device));
      return {
        device: d.device,
        lines: d.lines,
        state: change ? `${change.state}: ${changeOutcomeText(change)}` : notApplied(incident),
        change_id: change?.change_id ?? null,
        rollback: d.rollback,
      };
    }),
    agents_summary: { label: AGENTS_SUMMARY_LABEL, text: request.summary },
  };
}
