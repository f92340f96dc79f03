import { z } from 'zod';
import { approvalRequestSchema, approvalSchema, incidentSchema, incidentStateSchema, timelineEntrySchema } from '../incidents/model';
import { defineEvent } from './define';
import { planViewSchema } from '../approvals/plan-view';

/**
 * An incident as the relay shows it (`/sessions`, `/events`, the tray): no internal bookkeeping, and
 * a plan's request grouped by device (plan-view.ts), which every rendering of a plan reads.
 */
export const publicIncidentSchema = incidentSchema.omit({ dedup_key: true, prompt_text: true, trace: true }).extend({ plan_view: planViewSchema.optional() });

/**
 * Every event on the relay's bus, each defined once: the bus's types, what `/events` streams, what
 * the tray forwards to its window and the renderer's parsers all come from here. Shared with the
 * renderer: nothing here runs only in Node.
 */
export const relayEvents = {
  incidentCreated: defineEvent('incident.created', z.object({ incident: publicIncidentSchema }), { streamed: true }),
  incidentUpdated: defineEvent('incident.updated', z.object({ incident: publicIncidentSchema, previous_state: incidentStateSchema }), { streamed: true }),
  incidentTimeline: defineEvent('incident.timeline', z.object({ incident_id: z.string(), entry: timelineEntrySchema }), { streamed: true }),
  /** The tray turns this into a native notification with Approve / Deny. */
  approvalRequested: defineEvent('approval.requested', z.object({ incident: publicIncidentSchema, request: approvalRequestSchema }), { streamed: true }),
  approvalDecided: defineEvent('approval.decided', z.object({ incident: publicIncidentSchema, approval: approvalSchema }), { streamed: true }),
  healthRuntime: defineEvent('health.runtime', z.object({ ok: z.boolean(), error: z.string().optional() }), { streamed: false }),
};

type Defined = (typeof relayEvents)[keyof typeof relayEvents];

/** Everything the relay tells the tray, the renderer, notifications and logs, by event name. */
export type RelayEvents = { [D in Defined as D['name']]: z.output<D['schema']> };

type Streamed = Extract<Defined, { streamed: true }>;
export type StreamedEventName = Streamed['name'];

/** What `/events` carries after its snapshot, and the tray forwards to its window, in the bus's own names. */
export const STREAMED_EVENTS = Object.values(relayEvents)
  .filter((d) => d.streamed)
  .map((d) => d.name);

/** The data of each streamed event, by its name. */
export const streamedEventSchemas = Object.fromEntries(Object.values(relayEvents).filter((d) => d.streamed).map((d) => [d.name, d.schema])) as {
  [D in Streamed as D['name']]: D['schema'];
};

/** One streamed event as the renderer receives it: its name as `type`, beside its data. */
export type StreamedEvent = { [D in Streamed as D['name']]: { type: D['name'] } & z.output<D['schema']> }[StreamedEventName];
