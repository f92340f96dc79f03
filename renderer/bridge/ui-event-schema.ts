import { z } from 'zod';
import { approvalRequestSchema, approvalSchema, incidentSchema, incidentStateSchema, timelineEntrySchema } from '../../src/core/incidents/model';
import type { UiEvent } from './contract';

/** An incident as `/sessions` and `/events` show it: the relay's schema without its bookkeeping. */
export const incidentSummarySchema = incidentSchema.omit({ dedup_key: true, prompt_text: true });
export const incidentDetailSchema = incidentSummarySchema.extend({ timeline: z.array(timelineEntrySchema) });

/** The data line of each `/events` frame, by its event name. */
export const uiEventDataSchemas = {
  snapshot: z.object({ incidents: z.array(incidentSummarySchema), next_cursor: z.string().nullable().optional() }),
  'incident.created': z.object({ incident: incidentSummarySchema }),
  'incident.updated': z.object({ incident: incidentSummarySchema, previous_state: incidentStateSchema }),
  'incident.timeline': z.object({ incident_id: z.string(), entry: timelineEntrySchema }),
  'approval.requested': z.object({ incident: incidentSummarySchema, request: approvalRequestSchema }),
  'approval.decided': z.object({ incident: incidentSummarySchema, approval: approvalSchema }),
} as const;

export type UiEventName = keyof typeof uiEventDataSchemas;
export const UI_EVENT_NAMES = Object.keys(uiEventDataSchemas) as UiEventName[];

/** One frame as a UiEvent, or an error naming what did not fit. */
export function parseUiEvent(name: UiEventName, data: string): UiEvent {
  const parsed = uiEventDataSchemas[name].parse(JSON.parse(data));
  return { type: name, ...parsed } as UiEvent;
}
