import { context, createContextKey, createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type SpanContext } from '@opentelemetry/api';
import { tracingActive } from './sdk';
import type { StoredTrace } from '../../core/incidents/stored-trace';
import type { IncidentTracer } from '../../core/incidents/incident-tracer';

/** The span attributes this relay sets: identifiers only, never a configuration line or a secret. */
export const TRACE_ATTRIBUTES = {
  incident: 'fault_relay.incident.id',
  alertDef: 'fault_relay.alert_def_id',
  device: 'fault_relay.device',
  request: 'fault_relay.request.id',
} as const;

/** What of an incident a span needs (the model's and the store's incidents both have it). */
export interface TracedIncident {
  incident_id: string;
  device_hostname: string;
  trace?: StoredTrace | null;
  approval_request?: { request_id: string } | null;
}

const tracer = () => trace.getTracer('fault-relay');

function traceparentOf(span: SpanContext): StoredTrace {
  const flags = span.traceFlags.toString(16).padStart(2, '0');
  const state = span.traceState?.serialize();
  // The sender's tracestate rides along only within the size the store accepts back.
  return { traceparent: `00-${span.traceId}-${span.spanId}-${flags}`, ...(state && state.length <= 512 ? { tracestate: state } : {}) };
}

function contextOf(stored: StoredTrace): Context {
  const [, traceId, spanId, flags] = stored.traceparent.split('-') as [string, string, string, string];
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
    ...(stored.tracestate ? { traceState: createTraceState(stored.tracestate) } : {}),
  });
}

export function incidentAttributes(incident: TracedIncident | undefined): Attributes {
  if (!incident) return {};
  const request = incident.approval_request?.request_id;
  return { [TRACE_ATTRIBUTES.incident]: incident.incident_id, [TRACE_ATTRIBUTES.device]: incident.device_hostname, ...(request ? { [TRACE_ATTRIBUTES.request]: request } : {}) };
}

/** Set in the context of each incident span: a span started inside one of the same incident nests under it. */
const INCIDENT_KEY = createContextKey('fault-relay incident');

/** Where an incident's spans hang: inside one of its own spans (a post-check's confirm), under that one; else under its stored root. */
function parentFor(incident: TracedIncident | undefined): Context {
  const active = context.active();
  if (!incident?.trace || active.getValue(INCIDENT_KEY) === incident.incident_id) return active;
  return contextOf(incident.trace);
}

/**
 * The incident's root span, under the request that brought its alert (and so under the alert
 * sender's `traceparent`); null when tracing is off. Ended at once: what follows, maybe much later
 * and in another process, is parented to the stored context.
 */
export function openIncidentTrace(incident: { incident_id: string; device_hostname: string; alert_def_id: string; kind: string }): StoredTrace | null {
  if (!tracingActive()) return null;
  const span = tracer().startSpan('incident', {
    attributes: { ...incidentAttributes(incident), [TRACE_ATTRIBUTES.alertDef]: incident.alert_def_id, 'fault_relay.incident.kind': incident.kind },
  });
  span.end();
  // Unsampled too: its children then follow the sender's decision not to record.
  return traceparentOf(span.spanContext());
}

/**
 * Runs `work` in a span under the incident's trace; the relay's outbound calls made in it carry
 * that trace on. A failure marks the span, without its message (which may quote device output).
 */
export async function inIncidentSpan<T>(incident: TracedIncident | undefined, name: string, attributes: Attributes, work: () => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  if (!tracingActive()) return work();
  const parent = parentFor(incident);
  const within = incident ? parent.setValue(INCIDENT_KEY, incident.incident_id) : parent;
  return tracer().startActiveSpan(name, { kind, attributes: { ...incidentAttributes(incident), ...attributes } }, within, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span for something already over (an approval's wait, from its request to its decision). */
export function recordIncidentSpan(incident: TracedIncident, name: string, start: Date, end: Date, attributes: Attributes): void {
  if (!tracingActive()) return;
  tracer()
    .startSpan(name, { startTime: start, attributes: { ...incidentAttributes(incident), ...attributes } }, parentFor(incident))
    .end(end);
}

/**
 * An alert folded into the open incident: an `alert.repeat` span in the incident's trace, linked to
 * the request that brought it (which may be in the sender's own trace), and that request linked back
 * to the incident, so either trace leads to the other.
 */
export function traceRepeat(incident: TracedIncident & { occurrences: number }): void {
  if (!tracingActive() || !incident.trace) return;
  const root = contextOf(incident.trace);
  const request = trace.getActiveSpan();
  const links = request ? [{ context: request.spanContext() }] : [];
  tracer()
    .startSpan('alert.repeat', { links, attributes: { ...incidentAttributes(incident), 'fault_relay.incident.occurrences': incident.occurrences } }, root)
    .end();
  const incidentSpan = trace.getSpanContext(root);
  if (request && incidentSpan) {
    request.addLink({ context: incidentSpan });
    request.setAttribute(TRACE_ATTRIBUTES.incident, incident.incident_id);
  }
}

/** The core's incident tracer, on OpenTelemetry. */
export const incidentTracer: IncidentTracer = {
  open: openIncidentTrace,
  inSpan: (incident, name, work) => inIncidentSpan(incident, name, {}, work),
};
