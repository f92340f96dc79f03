import type { Incident } from './model';

/**
 * What the core asks of tracing: an incident's root span when it is created, and spans under its
 * trace for the work done on it. The telemetry adapter implements it; the relay wires it in.
 */
export interface IncidentTracer {
  /** The new incident's root span, stored with it; null when tracing is off. */
  open(incident: Pick<Incident, 'incident_id' | 'device_hostname' | 'alert_def_id' | 'kind'>): Incident['trace'];
  /** Runs `work` in a span under the incident's trace; the relay's outbound calls made in it carry that trace on. */
  inSpan<T>(incident: Incident | undefined, name: string, work: () => Promise<T>): Promise<T>;
}

/** No tracing: no root span, and the work runs as it is. */
export const noTracing: IncidentTracer = {
  open: () => null,
  inSpan: (_incident, _name, work) => work(),
};
