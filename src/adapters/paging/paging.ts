import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import type { Bus } from '../../core/events/bus';
import type { RelayEvents } from '../../core/incidents/events';
import { isTerminal, type Incident, type TimelineEntry } from '../../core/incidents/model';
import type { Owns } from '../../core/incidents/ownership';
import type { Incidents } from '../../core/incidents/service';
import type { OutboxItem } from '../outbox/types';
import type { EscalationStep } from '../../core/policy/schema';
import { createChainTimers } from './chain';
import { PAGER_LABELS, pageFor, shownDevice, type Page, type PagerName, type PageStep } from './page';
import { entries, isEntry } from '../../core/events/timeline-entries';
import { errorText } from '../../core/error-body';

export interface PagingDeps {
  incidents: Incidents;
  bus: Bus<RelayEvents>;
  clock: Clock;
  logger: Logger;
  outbox: { enqueue(item: OutboxItem): Promise<{ queued: boolean }> };
  /** The chain in force (the policy file's `escalation.steps`, read again on each use: edits apply). */
  steps: () => readonly EscalationStep[];
  /** The pagers this relay has credentials for. */
  pagers: readonly PagerName[];
  /** A notice on every operator channel (the reminder step). */
  remind: (incidentId: string, markdown: string) => void;
  owns: Owns;
  publicUrl: string;
}

/** Incidents that ended this recently are paged after a restart if their page never went out. */
const RECENT_MS = 3_600_000;
const PAGE_ENTRIES: ReadonlySet<string> = new Set([entries.pageSent.name, entries.pageFailed.name]);
const PERSON_DECISIONS = new Set(['APPROVED', 'DENIED']);

export const formatAfter = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : `${Math.round(ms / 1000)}s`);

/**
 * The escalation chain and the pages, derived in one place from what happens to incidents (their
 * state, their approval request, their timeline), never from the call sites that change them:
 * a pending request reminds the channels, then pages step by step until a decision arrives or a
 * person acknowledges the incident; an escalated or failed run, a rollback and a quarantined
 * device page at once; a decision or an acknowledgement acknowledges the page, a resolved run
 * resolves it. Pages go through the durable outbox under keys that name the incident and the
 * step, so a restart, or every relay of a team seeing the same change, sends each one once.
 */
export function createPaging(deps: PagingDeps) {
  const { incidents, clock } = deps;
  const queue = createPageQueue(deps);
  const { enqueue } = queue;
  const acknowledged = (id: string) => incidents.timeline(id).some((e) => isEntry(e, entries.incidentAcknowledged));
  const pageEntries = (id: string) => pageEntriesOf(incidents, id);

  /** Pages every configured pager at once, unless a person has acknowledged the incident. */
  function pageNow(incident: Incident, step: PageStep, keyPart: string, why: string): void {
    if (acknowledged(incident.incident_id)) return;
    for (const pager of deps.pagers) enqueue(pageFor(incident, pager, step, why, { publicUrl: deps.publicUrl }), `${incident.incident_id}:${keyPart}:${pager}`);
  }

  /** Acknowledges or resolves the page on every pager that was triggered for the incident. */
  function follow(incident: Incident, action: 'acknowledge' | 'resolve', keyPart: string, note: string): void {
    for (const pager of queue.pagedWith(incident.incident_id)) {
      enqueue(pageFor(incident, pager, action, action === 'acknowledge' ? 'acknowledged' : 'resolved', { publicUrl: deps.publicUrl, action, note }), `${incident.incident_id}:${action}:${keyPart}:${pager}`);
    }
  }

  /** The chain's step `index` for the pending request: a reminder, or a page of its pager. */
  function takeStep(incident: Incident, step: EscalationStep, index: number, requestId: string): void {
    const id = incident.incident_id;
    const waited = formatAfter(step.after);
    const data = { step: index, pager: step.notify, request_id: requestId, ...(step.to ? { to: step.to } : {}) };
    if (step.notify === 'remind') {
      // One relay of a team reminds: the one running the incident.
      if (deps.owns(id)) {
        deps.remind(id, `⏰ **${id}**: request ${requestId} for ${shownDevice(incident)} has waited ${waited} for a decision.`);
        incidents.record(id, entries.pageSent, `Reminded ${PAGER_LABELS.remind}: no decision after ${waited}`, { ...data, action: 'remind' });
      }
    } else if (!deps.pagers.includes(step.notify)) {
      if (deps.owns(id)) incidents.record(id, entries.pageFailed, `Could not page ${PAGER_LABELS[step.notify]}${step.to ? ` (${step.to})` : ''}: it is not configured on this relay`, { ...data, action: 'trigger', reason: 'not configured' });
    } else {
      enqueue(pageFor(incident, step.notify, index, `no decision on request ${requestId} after ${waited}`, { publicUrl: deps.publicUrl, ...(step.to ? { to: step.to } : {}) }), `${id}:${requestId}:step${index}:${step.notify}`);
    }
  }

  const chain = createChainTimers({
    clock,
    get: (id) => incidents.get(id),
    steps: deps.steps,
    acknowledged,
    recorded: (id, requestId, index) => pageEntries(id).some((e) => e.request_id === requestId && e.step === index),
    take: takeStep,
  });
  function onChange(incident: Incident, previous: Incident['state'] | undefined): void {
    chain.schedule(incident);
    if (previous !== undefined && previous !== incident.state) {
      if (incident.state === 'escalated' || incident.state === 'failed') pageNow(incident, incident.state, incident.state, `the run ended ${incident.state}`);
      if (incident.state === 'resolved') follow(incident, 'resolve', 'run', outcomeNote(incident));
    }
    const approval = incident.approval;
    if (approval && PERSON_DECISIONS.has(approval.decision)) follow(incident, 'acknowledge', approval.request_id || approval.at, `${approval.by} decided ${approval.decision} (${approval.channel})`);
  }

  function onEntry(incidentId: string, entry: TimelineEntry): void {
    const incident = incidents.get(incidentId);
    if (!incident) return;
    if (isEntry(entry, entries.deviceChangeRolledBack)) pageNow(incident, 'rollback', `rollback:${String(entry.change_id ?? entry.at)}`, `a change on the device was rolled back (${entry.state === 'rollback_failed' ? 'the rollback failed' : 'rolled back'})`);
    if (isEntry(entry, entries.deviceQuarantined)) pageNow(incident, 'quarantined', `quarantined:${String(entry.device ?? '')}`, 'the device was quarantined: the relay makes no further change on it');
    if (isEntry(entry, entries.incidentAcknowledged)) {
      chain.cancel(incidentId);
      follow(incident, 'acknowledge', 'person', `acknowledged by ${String(entry.by ?? 'someone')} (${String(entry.channel ?? 'api')})`);
    }
    // A person closed a finished run: the page is resolved with their reason (their words, labelled).
    if (isEntry(entry, entries.incidentClosed)) {
      chain.cancel(incidentId);
      follow(incident, 'resolve', 'closed', `closed by ${String(entry.by ?? 'someone')}: "${String(entry.reason ?? '')}"`);
    }
  }

  let offWatch = () => {};
  let offTimeline = () => {};
  return {
    /** A page the outbox finished: on the timeline, so /ui shows who was paged and when. */
    onFinished: (page: Page, outcome: 'sent' | 'failed', reason?: string) => recordFinishedPage(incidents, page, outcome, reason),
    /** Resolves once every page decided so far is in the outbox. */
    settled: queue.settled,
    /** Follows incidents from now on, and catches up with what happened while the relay was down. */
    start(): void {
      offWatch = incidents.watch(onChange);
      offTimeline = deps.bus.subscribe('incident.timeline', ({ incident_id, entry }) => onEntry(incident_id, entry));
      const now = clock.now().getTime();
      for (const incident of incidents.list()) {
        if (!isTerminal(incident.state)) chain.schedule(incident);
        else if ((incident.state === 'escalated' || incident.state === 'failed') && now - Date.parse(incident.updated_at) < RECENT_MS && !pageEntries(incident.incident_id).some((e) => e.step === incident.state)) {
          pageNow(incident, incident.state, incident.state, `the run ended ${incident.state}`);
        }
      }
    },
    stop(): void {
      offWatch();
      offTimeline();
      chain.stop();
    },
  };
}

const pageEntriesOf = (incidents: Incidents, id: string) => incidents.timeline(id).filter((e) => PAGE_ENTRIES.has(e.type));

/**
 * Pages on their way to the outbox: each key handed over once by this process (the outbox drops
 * repeats across restarts and relays), off the caller's turn; and the pagers each incident was
 * triggered on, for the acknowledgements and resolutions that follow.
 */
function createPageQueue(deps: Pick<PagingDeps, 'incidents' | 'outbox' | 'logger'>) {
  const { logger } = deps;
  /** Keys this process handed to the outbox already (the outbox drops repeats across restarts and relays). */
  const enqueued = new Set<string>();
  /** Pagers triggered per incident by this process; the timeline has those of earlier runs and other relays. */
  const triggered = new Map<string, Set<PagerName>>();
  /** Enqueues on their way to the outbox. */
  const inFlight = new Set<Promise<unknown>>();
  return {
    enqueue(page: Page, key: string): void {
      if (enqueued.has(key)) return;
      enqueued.add(key);
      if (page.action === 'trigger') triggered.set(page.incident_id, new Set([...(triggered.get(page.incident_id) ?? []), page.pager]));
      // Off the caller's turn: the change that caused the page (an alert's 202, a decision) never waits for the outbox's write.
      const queued = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => deps.outbox.enqueue({ key, kind: page.pager, payload: page }))
        .catch((error: unknown) => {
          enqueued.delete(key);
          logger.error({ incident_id: page.incident_id, key, err_message: errorText(error) }, 'could not queue a page');
        })
        .finally(() => inFlight.delete(queued));
      inFlight.add(queued);
    },
    pagedWith(id: string): Set<PagerName> {
      const out = new Set(triggered.get(id) ?? []);
      for (const e of pageEntriesOf(deps.incidents, id)) if (e.action === 'trigger' && (e.pager === 'pagerduty' || e.pager === 'opsgenie')) out.add(e.pager);
      return out;
    },
    /** Resolves once every page decided so far is in the outbox. */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}

/** The run's outcome for the resolve note: the relay's own summary, or the agent's words quoted and labelled. */
function outcomeNote(incident: Incident): string {
  const outcome = incident.outcome;
  if (!outcome) return `Resolved (${incident.incident_id})`;
  const text = outcome.summary.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 500);
  return outcome.by === 'agent' ? `Resolved. The agent reported (its words, unverified): "${text}"` : `Resolved: ${text}`;
}

/** A page the outbox finished, on the incident's timeline (`page.sent` / `page.failed`). */
function recordFinishedPage(incidents: Incidents, page: Page, outcome: 'sent' | 'failed', reason?: string): void {
  if (!incidents.get(page.incident_id)) return;
  const label = PAGER_LABELS[page.pager];
  const what = page.action === 'trigger' ? `Paged ${label}${page.to ? ` (${page.to})` : ''}` : `${page.action === 'acknowledge' ? 'Acknowledged' : 'Resolved'} the page in ${label}`;
  const data = { step: page.step, pager: page.pager, action: page.action, ...(page.request_id ? { request_id: page.request_id } : {}), ...(page.to ? { to: page.to } : {}) };
  if (outcome === 'sent') incidents.record(page.incident_id, entries.pageSent, `${what}: ${page.summary}`, data);
  else incidents.record(page.incident_id, entries.pageFailed, `${what} failed: ${reason ?? 'unknown reason'}`, { ...data, reason: reason ?? '' });
}
