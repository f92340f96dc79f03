import { z } from 'zod';
import type { SourcedAlert } from './alert-source';
import { isTerminal, type Incident, type TimelineEntry } from './model';
import type { Incidents } from './service';
import { storableText } from './storable-text';
import { entries, isEntry } from '../events/timeline-entries';

/** The person acting, as OPERATORS_FILE names them. */
export interface Actor {
  name: string;
  email: string;
}

/** How people handle an incident beside its run: who took it on, who has it, whether it is closed or retried. */
export interface Handling {
  acknowledged?: { by: string; channel: string; at: string };
  assigned?: { to: string; to_email: string; by: string; at: string };
  closed?: { by: string; reason: string; at: string };
  retried?: { by: string; incident_id: string; at: string };
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Read from the timeline, which every relay of a team shares: the first acknowledgement, the latest assignment. */
export function handlingOf(timeline: readonly TimelineEntry[]): Handling {
  const out: Handling = {};
  for (const e of timeline) {
    const d = e as Record<string, unknown>;
    if (isEntry(e, entries.incidentAcknowledged) && !out.acknowledged) out.acknowledged = { by: str(d.by), channel: str(d.channel), at: e.at };
    if (isEntry(e, entries.incidentAssigned)) out.assigned = { to: str(d.to), to_email: str(d.to_email), by: str(d.by), at: e.at };
    if (isEntry(e, entries.incidentClosed) && !out.closed) out.closed = { by: str(d.by), reason: str(d.reason), at: e.at };
    if (isEntry(e, entries.incidentRetried)) out.retried = { by: str(d.by), incident_id: str(d.incident_id), at: e.at };
  }
  return out;
}

/** Why an action cannot be taken, in words for the person who asked; `status` is the HTTP answer. */
export class HandlingRefused extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The fault again, from what the relay stored of it: the retry is a new run, with the first one's fields. */
export function retryAlertOf(incident: Incident): SourcedAlert {
  return {
    dedup_key: incident.dedup_key,
    normalized: () => ({
      alert_def_id: incident.alert_def_id,
      device_hostname: incident.device_hostname,
      alert_vars: { ...incident.alert_vars },
      raw_message: null,
      kb_query_mode: 'standard',
      warnings: [...incident.warnings],
      dedup_key: incident.dedup_key,
      field_sources: incident.field_sources ?? { device_hostname: 'result', neighbor_ip: 'absent', vrf_name: 'absent' },
    }),
  };
}

/**
 * What a person does with an incident besides deciding its approval: assign it to someone on the
 * team, close it with a reason once its run has ended, retry a run that failed or was escalated.
 * Each is one timeline entry, so every relay of a team, the tray and `/ui` see it at once.
 */
export function createIncidentHandling(deps: {
  incidents: Incidents;
  intake: (alert: SourcedAlert) => Promise<{ incident_id: string; status: string }>;
  /** The team (OPERATORS_FILE): who an incident can be assigned to, and who the tray's user is. */
  people?: { byEmail(email: string): (Actor & { role: string }) | undefined; byOsUser?(account: string): (Actor & { role: string }) | undefined };
}) {
  const { incidents, people } = deps;
  const found = (id: string) => {
    const incident = incidents.get(id);
    if (!incident) throw new HandlingRefused(404, 'not_found', `No incident ${id}`);
    return incident;
  };
  const open = (incident: Incident) => {
    const closed = handlingOf(incidents.timeline(incident.incident_id)).closed;
    if (closed) throw new HandlingRefused(409, 'already_closed', `${incident.incident_id} was closed by ${closed.by} at ${closed.at}: ${closed.reason}`);
  };
  return {
    /** Takes the incident on: the escalation chain stops and the page is acknowledged. A second time names who took it first. */
    acknowledge(id: string, by: Actor, channel: string) {
      found(id);
      const earlier = handlingOf(incidents.timeline(id)).acknowledged;
      if (earlier) return { status: 'acknowledged' as const, incident_id: id, ...earlier, already: true };
      const entry = incidents.record(id, entries.incidentAcknowledged, `Acknowledged by ${by.name} (${channel}): pages stop`, { by: by.name, channel });
      return { status: 'acknowledged' as const, incident_id: id, by: by.name, channel, at: entry.at };
    },
    /** The tray's user as the team knows them (`os_user`); a viewer acts on nothing, an unlisted user by their account name. */
    desktopActor(account: string): Actor {
      const listed = people?.byOsUser?.(account);
      if (listed?.role === 'viewer') throw new HandlingRefused(403, 'not_an_approver', `${listed.email} is a viewer: only approvers act on incidents.`);
      return listed ?? { name: account, email: '' };
    },
    assign(id: string, by: Actor, email: string) {
      const to = people?.byEmail(email);
      if (!to) throw new HandlingRefused(400, 'unknown_person', `${email} is not in OPERATORS_FILE: assign an incident to someone on the team.`);
      const incident = found(id);
      open(incident);
      const entry = incidents.record(id, entries.incidentAssigned, `Assigned to ${to.name} by ${by.name}`, { to: to.name, to_email: to.email, by: by.name });
      return { status: 'assigned' as const, incident_id: id, to: to.name, to_email: to.email, by: by.name, at: entry.at };
    },
    close(id: string, by: Actor, reason: string) {
      const incident = found(id);
      open(incident);
      if (!isTerminal(incident.state)) {
        throw new HandlingRefused(409, 'incident_active', `${id} is ${incident.state.replace(/_/g, ' ')}: a run still going cannot be closed. Deny its pending change or wait for its outcome, then close it.`);
      }
      const text = storableText(reason.trim());
      const entry = incidents.record(id, entries.incidentClosed, `Closed by ${by.name}: ${text}`, { by: by.name, reason: text });
      return { status: 'closed' as const, incident_id: id, by: by.name, reason: text, at: entry.at };
    },
    async retry(id: string, by: Actor) {
      const incident = found(id);
      open(incident);
      if (incident.state !== 'failed' && incident.state !== 'escalated') {
        throw new HandlingRefused(409, 'not_retryable', `${id} is ${incident.state.replace(/_/g, ' ')}: only a failed or escalated run is retried.`);
      }
      const earlier = handlingOf(incidents.timeline(id)).retried;
      if (earlier) throw new HandlingRefused(409, 'already_retried', `${id} was retried by ${earlier.by} at ${earlier.at} as ${earlier.incident_id}`);
      const accepted = await deps.intake(retryAlertOf(incident));
      incidents.record(id, entries.incidentRetried, `Retried by ${by.name} as ${accepted.incident_id}`, { by: by.name, incident_id: accepted.incident_id });
      if (accepted.status !== 'duplicate') incidents.record(accepted.incident_id, entries.incidentRetryOf, `A retry of ${id}, asked by ${by.name}`, { of: id, by: by.name });
      return { status: accepted.status === 'duplicate' ? ('already_open' as const) : ('retried' as const), incident_id: id, new_incident_id: accepted.incident_id, by: by.name };
    },
  };
}
export type IncidentHandling = ReturnType<typeof createIncidentHandling>;

/** One thing a person does with an incident, as the tray and /ui send it: one definition for both. */
export const incidentActionSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('acknowledge') }),
  z.strictObject({ kind: z.literal('assign'), to: z.email() }),
  z.strictObject({ kind: z.literal('close'), reason: z.string().trim().min(1, 'say why it is closed').max(1000) }),
  z.strictObject({ kind: z.literal('retry') }),
]);
export type IncidentAction = z.infer<typeof incidentActionSchema>;

/** What the person is told after an action, in the relay's words. */
export type IncidentActionOutcome = { status: 'done'; message: string } | { status: 'refused'; message: string };

/** A done action in the relay's words, from the answer the API or the handling gave. */
export function actionDoneWords(action: IncidentAction, answer: Record<string, unknown>): string {
  const text = (key: string) => (typeof answer[key] === 'string' ? answer[key] : '');
  switch (action.kind) {
    case 'acknowledge':
      return answer.already ? `Already acknowledged by ${text('by')}` : 'Acknowledged: pages stop';
    case 'assign':
      return `Assigned to ${text('to')}`;
    case 'close':
      return 'Closed';
    case 'retry':
      return answer.status === 'already_open' ? `The fault is already open as ${text('new_incident_id')}` : `Retried as ${text('new_incident_id')}`;
  }
}

/** Runs an action as `by`, answering in words; a refusal is told, never thrown. */
export async function runIncidentAction(handling: IncidentHandling, id: string, by: Actor, action: IncidentAction, channel: string): Promise<IncidentActionOutcome> {
  try {
    const answer =
      action.kind === 'acknowledge' ? handling.acknowledge(id, by, channel)
      : action.kind === 'assign' ? handling.assign(id, by, action.to)
      : action.kind === 'close' ? handling.close(id, by, action.reason)
      : await handling.retry(id, by);
    return { status: 'done', message: actionDoneWords(action, answer) };
  } catch (error) {
    if (error instanceof HandlingRefused) return { status: 'refused', message: error.message };
    throw error;
  }
}
