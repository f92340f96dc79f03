import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Bus } from '../core/events/bus';
import type { RelayEvents } from '../core/incidents/events';
import { INCIDENT_STATES, type Incident } from '../core/incidents/model';
import type { StoreHealth } from '../core/incidents/store';
import { entries, isEntry } from '../core/events/timeline-entries';

/** What an alert sender was answered: the 202's status, or why there was no 202. */
export type AlertAnswer = 'accepted' | 'queued' | 'duplicate' | 'resolved' | 'refused' | 'invalid';

export interface RelayMetricsDeps {
  bus: Bus<RelayEvents>;
  incidents: { open(): Incident[]; get(id: string): Incident | undefined };
  /** The store's own health (no round trip): a scrape must stay cheap and never wait on the database. */
  storeHealth: () => StoreHealth;
  /** A team relay: whether it holds a leader lock now. Absent on a laptop relay (the gauge then reads 0). */
  leading?: () => boolean;
}

export interface RelayMetrics {
  registry: Registry;
  alertAnswered(source: string, answer: AlertAnswer, count?: number): void;
  /** The text exposition for `GET /metrics`. */
  render(): Promise<string>;
  contentType: string;
  stop(): void;
}

const seconds = (from: string, to: string) => Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);

/**
 * Device refusals carry free text (device names, incident ids): a label gets a small fixed set
 * instead, so the series count stays bounded and nothing an agent typed ends up in Prometheus.
 */
export function refusalReason(tool: string, reason: string): string {
  if (/^unknown incident/.test(reason)) return 'unknown_incident';
  if (/no device tool server is configured/.test(reason)) return 'no_device_server';
  if (/claim on the approval could not be recorded/.test(reason)) return 'claim_not_durable';
  return tool === 'config_cli' ? 'not_approved' : 'policy';
}

/**
 * Every metric of the relay, in a registry of its own: tests run many relays in one process, and
 * prom-client's global registry would refuse the second relay's metric names.
 * Counters follow the event bus, so the code that does the work needs no metrics calls.
 */
export function createRelayMetrics(deps: RelayMetricsDeps): RelayMetrics {
  const registry = new Registry();
  const registers = [registry];

  const alerts = new Counter({ name: 'fault_relay_alerts_received_total', help: 'Alerts received, by source and by what the sender was answered.', labelNames: ['source', 'answer'], registers });
  const created = new Counter({ name: 'fault_relay_incidents_created_total', help: 'Incidents created.', registers });
  const decided = new Counter({ name: 'fault_relay_approvals_decided_total', help: 'Approval decisions, by outcome and the channel that decided.', labelNames: ['outcome', 'channel'], registers });
  const requested = new Counter({ name: 'fault_relay_approvals_requested_total', help: 'Approvals requested of the operators.', registers });
  const toDecision = new Histogram({
    name: 'fault_relay_approval_decision_seconds',
    help: 'Seconds from an approval request to its decision.',
    labelNames: ['outcome'],
    // Humans answer in seconds to hours; APPROVAL_TTL bounds the tail.
    buckets: [5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200],
    registers,
  });
  const toApplied = new Histogram({
    name: 'fault_relay_approval_applied_seconds',
    help: 'Seconds from an APPROVED decision to the change being applied on the device.',
    buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers,
  });
  const deviceCalls = new Counter({ name: 'fault_relay_device_calls_total', help: 'Device tool calls through the guard: allowed (sent to the device) or refused, by tool and reason.', labelNames: ['tool', 'result', 'reason'], registers });

  // Gauges are read from the relay's state at scrape time: nothing to keep in step between scrapes.
  new Gauge({
    name: 'fault_relay_incidents',
    help: 'Open incidents by state.',
    labelNames: ['state'],
    registers,
    collect() {
      const counts = new Map<string, number>(INCIDENT_STATES.map((s) => [s, 0]));
      for (const incident of deps.incidents.open()) counts.set(incident.state, (counts.get(incident.state) ?? 0) + 1);
      for (const [state, n] of counts) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'fault_relay_delivery_queue_depth',
    help: 'Incidents waiting for a runtime slot (state queued).',
    registers,
    collect() {
      this.set(deps.incidents.open().filter((i) => i.state === 'queued').length);
    },
  });
  new Gauge({
    name: 'fault_relay_team_leader',
    help: '1 while this relay holds a team leader lock; 0 otherwise and on a laptop relay.',
    registers,
    collect() {
      this.set(deps.leading?.() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'fault_relay_store_up',
    help: "1 while the incident store reports itself healthy (the database is reachable), else 0.",
    labelNames: ['backend'],
    registers,
    collect() {
      const health = deps.storeHealth();
      this.reset();
      this.set({ backend: health.backend }, health.ok ? 1 : 0);
    },
  });

  const offs = [
    deps.bus.subscribe('incident.created', () => created.inc()),
    deps.bus.subscribe('approval.requested', () => requested.inc()),
    deps.bus.subscribe('approval.decided', ({ incident, approval }) => {
      decided.inc({ outcome: approval.decision, channel: approval.channel });
      const asked = incident.approval_request?.requested_at;
      if (asked) toDecision.observe({ outcome: approval.decision }, seconds(asked, approval.at));
    }),
    deps.bus.subscribe('incident.timeline', ({ incident_id, entry }) => {
      if (isEntry(entry, entries.deviceExec)) deviceCalls.inc({ tool: 'exec_cli', result: 'allowed', reason: '' });
      else if (isEntry(entry, entries.deviceConfigApplied)) {
        deviceCalls.inc({ tool: 'config_cli', result: 'allowed', reason: '' });
        const approval = deps.incidents.get(incident_id)?.approval;
        if (approval?.decision === 'APPROVED' || approval?.effective === 'APPROVED') toApplied.observe(seconds(approval.at, entry.at));
      } else if (isEntry(entry, entries.deviceRefused)) {
        const tool = typeof entry.tool === 'string' ? entry.tool : 'unknown';
        const reason = typeof entry.reason === 'string' ? entry.reason : '';
        deviceCalls.inc({ tool, result: 'refused', reason: refusalReason(tool, reason) });
      }
    }),
  ];

  return {
    registry,
    alertAnswered(source, answer, count = 1) {
      if (count > 0) alerts.inc({ source, answer }, count);
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
    stop() {
      for (const off of offs) off();
    },
  };
}
