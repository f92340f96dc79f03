import type { IncidentState } from './model';

/**
 * The incident's `state` as data, beside the gate's table (src/core/approvals/lifecycle.ts). Only
 * `Incidents.transition` (src/core/incidents/service.ts) moves it, by one of these events; `update`
 * cannot touch `state` at all. An event not allowed from the current state is refused, so a late
 * or repeated signal (a second outcome, a takeover of a finished run, a decision after expiry)
 * never moves a run backwards or out of a terminal state.
 */
export const INCIDENT_EVENTS = [
  /** The dispatcher handed the run to the runtime. */
  'deliver',
  /** The agents asked for a human decision. */
  'request_approval',
  /** A person decided on a channel the agent has not read yet: the relay forwards it. */
  'approve',
  'deny',
  /** A person decided in the run's own terminal: the agent read it there, the run goes on. */
  'decide_in_session',
  /** The agent was told the decision: the run goes on. */
  'resume',
  /** No decision within the TTL: escalated. */
  'expire',
  /** Another relay adopted a run that never touched a device: delivered again. */
  'requeue',
  'resolve',
  'escalate',
  'fail',
] as const;
export type IncidentEvent = (typeof INCIDENT_EVENTS)[number];

/** Where a run is between delivery and its outcome. */
const ACTIVE = ['running', 'awaiting_approval', 'approved', 'denied'] as const;
type Row = readonly [IncidentState, IncidentEvent, IncidentState];

export const INCIDENT_TRANSITIONS: readonly Row[] = [
  ['queued', 'deliver', 'running'],
  // No model configured: the run cannot start, and says so.
  ['queued', 'fail', 'failed'],
  ['running', 'request_approval', 'awaiting_approval'],
  ['awaiting_approval', 'approve', 'approved'],
  ['awaiting_approval', 'deny', 'denied'],
  ['awaiting_approval', 'decide_in_session', 'running'],
  ['awaiting_approval', 'expire', 'escalated'],
  ['approved', 'resume', 'running'],
  ['denied', 'resume', 'running'],
  // The agent reports its outcome only while it runs (an open approval must be decided first).
  ['running', 'resolve', 'resolved'],
  ['running', 'escalate', 'escalated'],
  ['running', 'fail', 'failed'],
  ['approved', 'resolve', 'resolved'],
  ['denied', 'escalate', 'escalated'],
  ['approved', 'escalate', 'escalated'],
  ['approved', 'fail', 'failed'],
  ['denied', 'fail', 'failed'],
  // The runtime reported the session failed, or another relay's takeover: from anywhere active.
  ['awaiting_approval', 'fail', 'failed'],
  ['awaiting_approval', 'escalate', 'escalated'],
  ...ACTIVE.map((from) => [from, 'requeue', 'queued'] as const),
];

const table = new Map(INCIDENT_TRANSITIONS.map(([from, event, to]) => [`${from}/${event}`, to] as const));

export type StateStep = { ok: true; next: IncidentState } | { ok: false; reason: string };

/** Pure: the state `event` leads to from `from`, or why it may not happen. */
export function nextState(from: IncidentState, event: IncidentEvent): StateStep {
  const next = table.get(`${from}/${event}`);
  return next ? { ok: true, next } : { ok: false, reason: `an incident that is ${from} cannot ${event.replace(/_/g, ' ')}` };
}

/** A state change the table refuses: a bug or a late signal, never applied. */
export class IncidentStateError extends Error {
  override readonly name = 'IncidentStateError';
}
