import { z } from 'zod';
import { publicIncidentSchema, streamedEventSchemas } from '../../src/core/events/relay-events';
import { timelineEntrySchema } from '../../src/core/incidents/model';
import type { UiEvent } from './contract';

/** An incident as `/sessions` and `/events` show it: the relay's schema without its bookkeeping. */
export const incidentSummarySchema = publicIncidentSchema;
export const incidentDetailSchema = incidentSummarySchema.extend({ timeline: z.array(timelineEntrySchema) });

/** The data line of each `/events` frame, by its event name: the snapshot, then the relay's streamed events. */
export const uiEventDataSchemas = {
  snapshot: z.object({ incidents: z.array(incidentSummarySchema), next_cursor: z.string().nullable().optional() }),
  ...streamedEventSchemas,
} as const;

export type UiEventName = keyof typeof uiEventDataSchemas;
export const UI_EVENT_NAMES = Object.keys(uiEventDataSchemas) as UiEventName[];

/** One frame as a UiEvent, or an error naming what did not fit. */
export function parseUiEvent(name: UiEventName, data: string): UiEvent {
  const parsed = uiEventDataSchemas[name].parse(JSON.parse(data));
  return { type: name, ...parsed } as UiEvent;
}
