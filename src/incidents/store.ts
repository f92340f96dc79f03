import type { Incident, TimelineEntry } from './model';

/**
 * Where incidents live. The index (incident records) is small and bounded by
 * retention; timelines are append-only so recording an event costs the same
 * whether one or a thousand incidents are stored.
 */
export interface IncidentStore {
  get(incidentId: string): Incident | undefined;
  /** Newest first. */
  list(): Incident[];
  /**
   * Insert or replace; durable when it returns. `lazy` writes may be coalesced for a
   * moment (a duplicate storm): use it only for what the timeline also records.
   */
  put(incident: Incident, opts?: { lazy?: boolean }): void;
  appendTimeline(incidentId: string, entry: TimelineEntry): void;
  timeline(incidentId: string): TimelineEntry[];
  /** Flushes anything written lazily. */
  close(): void;
}

/** The part of `conf` / `electron-store` the store uses, so either can be passed in. */
export interface KeyValueBackend {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}
