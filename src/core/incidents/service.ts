import type { Logger } from 'pino';
import type { NormalizedAlert } from './alert-source';
import { buildAgentPrompt, renderPromptText, type PromptPlanDevice } from './agent-prompt';
import type { Bus } from '../events/bus';
import type { Clock } from '../clock';
import type { EntryDefinition, RecordData } from '../events/define';
import { entries, isEntry } from '../events/timeline-entries';
import type { RelayEvents } from './events';
import { isTerminal, publicIncident, type Incident, type Severity, type TimelineEntry } from './model';
import { incidentIndexes } from './incident-indexes';
import { incidentCreator } from './new-incident';
import { remoteApplier } from './remote-incidents';
import type { IncidentStore } from './store';
import { noTracing, type IncidentTracer } from './incident-tracer';
import { IncidentStateError, nextState, type IncidentEvent } from './state';

/** What `update` may change: anything but the state, which only `transition` moves (src/core/incidents/state.ts). */
export type IncidentChange = Partial<Omit<Incident, 'state' | 'incident_id' | 'created_at' | 'updated_at'>> & { state?: never };

export type NewIncident = Omit<
  Incident,
  'incident_id' | 'kind' | 'created_at' | 'updated_at' | 'last_seen' | 'occurrences' | 'state' | 'session_id' | 'approval_request' | 'approval' | 'application' | 'change' | 'outcome' | 'delivery' | 'prompt_text' | 'field_sources' | 'severity' | 'progress' | 'trace'
> & {
  field_sources?: Incident['field_sources'];
  promptTextFor: (incidentId: string) => string;
  /** Headed incidents are run by an operator in the terminal UI: no delivery, they start running. */
  kind?: Incident['kind'];
};

export type IncidentWatcher = (incident: Incident, previous: Incident['state'] | undefined) => void;

/**
 * A new incident's fields from a normalized alert: the relay's intake and headed runs build it the same way.
 * `planDevices` are the relay's own finds for the RAW's plan roles, named in the prompt so the agent need not guess.
 */
export function newIncidentFrom(normalized: NormalizedAlert, mode: Incident['mode'], kind: Incident['kind'] = 'relay', planDevices: readonly PromptPlanDevice[] = []): NewIncident {
  return {
    kind,
    alert_def_id: normalized.alert_def_id,
    device_hostname: normalized.device_hostname,
    mode,
    warnings: normalized.warnings,
    alert_vars: normalized.alert_vars,
    dedup_key: normalized.dedup_key,
    field_sources: normalized.field_sources,
    promptTextFor: (id) => renderPromptText(buildAgentPrompt(normalized, id, mode, planDevices)),
  };
}

export interface IncidentsDeps {
  store: IncidentStore;
  bus: Bus<RelayEvents>;
  clock: Clock;
  logger: Logger;
  /** A new incident's severity (from the alert or its fault signature). */
  severityFor?: (alertDefId: string, alertVars: Readonly<Record<string, string>>) => Severity | null;
  /** Each incident's trace; none without it. */
  tracer?: IncidentTracer;
}

/**
 * The one place incidents change: every change is stored, lands in the timeline
 * and is published on the bus, so the UI, the tray and the logs never disagree.
 */
export function createIncidents(deps: IncidentsDeps) {
  const { store, bus, clock, logger } = deps;
  const tracer = deps.tracer ?? noTracing;
  const indexes = incidentIndexes(store);
  /** Told of every incident as it is created or changed, before the bus (the dispatcher's queue). */
  const watchers = new Set<IncidentWatcher>();
  const tell = (incident: Incident, previous: Incident['state'] | undefined) => {
    for (const w of watchers) w(incident, previous);
  };

  /** Writes an entry of `def` on the incident's timeline; its data is typed by the definition. */
  const record = <D extends EntryDefinition>(incidentId: string, def: D, message: string, ...data: RecordData<D>): TimelineEntry => {
    const entry: TimelineEntry = { at: clock.now().toISOString(), type: def.name, message, ...(data[0] as Record<string, unknown> | undefined) };
    store.appendTimeline(incidentId, entry);
    bus.publish('incident.timeline', { incident_id: incidentId, entry });
    return entry;
  };

  const get = (incidentId: string) => store.get(incidentId);
  /** Stores `change(current)`, keeps the indexes, records a state change, publishes. */
  function write(incidentId: string, change: (current: Incident) => Partial<Incident>, opts?: { lazy?: boolean }): Incident {
    const current = store.get(incidentId);
    if (!current) throw new Error(`unknown incident ${incidentId}`);
    const next: Incident = { ...current, ...change(current), updated_at: clock.now().toISOString() };
    // A finished run is never delivered again: its prompt need not stay in the archive.
    if (isTerminal(next.state)) next.prompt_text = null;
    store.put(next, { lazy: Boolean(opts?.lazy) && next.state === current.state });
    indexes.written(next);
    if (next.state !== current.state) {
      logger.info({ incident_id: incidentId, from: current.state, to: next.state }, 'incident state changed');
      record(incidentId, entries.stateChanged, `${current.state} → ${next.state}`, { from: current.state, to: next.state });
    }
    tell(next, current.state);
    bus.publish('incident.updated', { incident: publicIncident(next), previous_state: current.state });
    return next;
  }

  return {
    get,
    list: () => store.list(),
    /** Every incident in no particular order: no sort of the whole store (snapshots and pages). */
    values: (): Iterable<Incident> => store.values?.() ?? store.list(),
    /**
     * `fn` is called with each incident created or changed here or by another relay, with the state
     * it had before (undefined when new), synchronously and before the bus hears of it.
     */
    watch(fn: IncidentWatcher): () => void {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
    /** Incidents not yet resolved, escalated or failed; cheap, for the hot paths. */
    open: indexes.open,
    /** As held in memory: complete for open and recently finished incidents (the hot paths). */
    timeline: (incidentId: string) => store.timeline(incidentId),
    /** Complete for any stored incident (the UI and the session log). */
    loadTimeline: (incidentId: string) => store.loadTimeline(incidentId),
    /** The exact prompt text stored at intake, so a queued alert is delivered unchanged after a restart. */
    promptText(incidentId: string): string | undefined {
      const incident = store.get(incidentId);
      if (incident?.prompt_text) return incident.prompt_text;
      // Incidents stored before the prompt became a field kept it in their first timeline entry.
      const received = store.timeline(incidentId).find((e) => isEntry(e, entries.alertReceived));
      return typeof received?.prompt === 'string' ? received.prompt : undefined;
    },
    record,
    /** Runs `work` in a span under the incident's trace (the delivery, a change's steps). */
    inSpan: <T>(incidentId: string, name: string, work: () => Promise<T>): Promise<T> => tracer.inSpan(store.get(incidentId), name, work),
    /** The incident whose root agent session this is. */
    bySession: indexes.bySession,
    findOpen: indexes.findOpen,

    /** Synchronous on purpose: check-and-insert must not interleave with another intake. */
    create: incidentCreator({ ...deps, tracer, indexes, record, tell }),

    /**
     * Team relays: changes another relay made, already in the store's memory. The indexes follow
     * and the bus tells this relay's /events, tray and logs, as if the change were made here.
     */
    applyRemote: remoteApplier({ indexes, tell, bus }),

    /** Applies `change` (never the state) to the stored incident; returns the new record. */
    update(incidentId: string, change: (current: Incident) => IncidentChange, opts?: { lazy?: boolean }): Incident {
      return write(incidentId, (cur) => {
        const fields = change(cur);
        // For callers the types do not reach (JavaScript, casts): the state has one writer.
        if ('state' in fields) throw new IncidentStateError(`${incidentId}: the state changes only through a transition`);
        return fields;
      }, opts);
    },

    /**
     * The one way an incident's state moves: by an event of the table in state.ts, with the fields
     * that go with it, checked and stored in one synchronous step. Refused (IncidentStateError,
     * nothing written) when the table has no such step from the current state.
     */
    transition(incidentId: string, event: IncidentEvent, change: (current: Incident) => IncidentChange = () => ({})): Incident {
      return write(incidentId, (cur) => {
        const step = nextState(cur.state, event);
        if (!step.ok) throw new IncidentStateError(`${incidentId}: ${step.reason}`);
        const fields = change(cur);
        if ('state' in fields) throw new IncidentStateError(`${incidentId}: the state comes from the transition, not the change`);
        return { ...fields, state: step.next };
      });
    },

    /** Whether `event` may happen now (the same table), for callers that answer before they act. */
    can: (incidentId: string, event: IncidentEvent) => {
      const cur = store.get(incidentId);
      return cur !== undefined && nextState(cur.state, event).ok;
    },
  };
}

export type Incidents = ReturnType<typeof createIncidents>;
