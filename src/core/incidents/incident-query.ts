import { z } from 'zod';
import { INCIDENT_STATES, type Incident } from './model';

export const OUTCOME_KINDS = ['resolved', 'escalated', 'failed'] as const;

const instant = z.string().datetime({ offset: true, message: 'a time such as 2026-11-29T03:00:00Z' });

/**
 * Which incidents a person looks for: a time range (when they were raised), states, a device, who
 * decided, how they ended. One definition for the API's `/sessions` query and the list in the tray
 * and `/ui`, so both find the same incidents.
 */
export const incidentQuerySchema = z.object({
  from: instant.optional(),
  to: instant.optional(),
  /** One state or several, comma-separated: `escalated,failed`. */
  state: z
    .string()
    .max(200)
    .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(z.enum(INCIDENT_STATES, { error: `one of ${INCIDENT_STATES.join(', ')}` })).min(1))
    .optional(),
  device: z.string().min(1).max(64).optional(),
  /** Part of the name or e-mail of the person who decided, any case. */
  approver: z.string().min(1).max(200).optional(),
  outcome: z.enum(OUTCOME_KINDS).optional(),
});
export type IncidentQuery = z.infer<typeof incidentQuerySchema>;

export const isEmptyQuery = (q: IncidentQuery) => Object.values(q).every((v) => v === undefined);

/** Whether an incident is one the query looks for; an empty query matches every incident. */
export function matchesIncidentQuery(i: Pick<Incident, 'created_at' | 'state' | 'device_hostname' | 'approval' | 'outcome'>, q: IncidentQuery): boolean {
  const at = Date.parse(i.created_at);
  if (q.from && at < Date.parse(q.from)) return false;
  if (q.to && at >= Date.parse(q.to)) return false;
  if (q.state && !q.state.includes(i.state)) return false;
  if (q.device && i.device_hostname.toLowerCase() !== q.device.toLowerCase()) return false;
  if (q.approver && !(i.approval?.by ?? '').toLowerCase().includes(q.approver.toLowerCase())) return false;
  if (q.outcome && i.outcome?.kind !== q.outcome) return false;
  return true;
}
