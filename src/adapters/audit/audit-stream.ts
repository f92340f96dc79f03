import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from '../../core/clock';
import type { Bus } from '../../core/events/bus';
import type { RelayEvents } from '../../core/incidents/events';
import type { Incident, TimelineEntry } from '../../core/incidents/model';
import type { Owns } from '../../core/incidents/ownership';
import { createOutbox, type Outbox, type OutboxStore, type SendResult, type StoredItem } from '../outbox/outbox';
import { isAuditedEntry } from './audited-entries';
import { entries } from '../../core/events/timeline-entries';
import type { Incidents } from '../../core/incidents/service';

type AuditProgress = typeof entries.auditDelivered | typeof entries.auditFailed | typeof entries.auditWaiting;
import { auditEventOf } from './derive';
import { auditEventSchema, type AuditEvent } from './schema';
import type { AuditSender, BatchResult } from './sender';
import { errorText } from '../../core/error-body';

export interface AuditStreamDeps {
  senders: readonly AuditSender[];
  /** Where each sink's outbox keeps its batches (the data folder's file; on a team, the database). */
  openStore: (name: string) => OutboxStore;
  incidents: { get(id: string): Incident | undefined; timeline(id: string): readonly TimelineEntry[]; record: Incidents['record'] };
  bus: Bus<RelayEvents>;
  /** Only the incident's owner derives its events (a laptop owns every incident). */
  owns: Owns;
  /** This relay's name in every event (RELAY_ID, else the host name). */
  relay: string;
  scrub?: (text: string) => string;
  clock: Clock;
  logger: Logger;
  /** Tries of one batch before it fails for good (429/5xx/unreachable): bounded, never forever; the default rides out about two hours of outage. */
  maxAttempts?: number;
  pollMs?: number;
}

const payloadSchema = z.object({ events: z.array(auditEventSchema) });

/** The entry as it stands in the timeline and everything before it: the bundle as it was at that moment. */
function upTo(timeline: readonly TimelineEntry[], entry: TimelineEntry): readonly TimelineEntry[] {
  const at = timeline.lastIndexOf(entry);
  const index = at >= 0 ? at : timeline.findLastIndex((e) => e.at === entry.at && e.type === entry.type);
  return index >= 0 ? timeline.slice(0, index + 1) : [...timeline, entry];
}

/**
 * The audit stream: every audit event (derived here from the timeline as entries are written, or
 * handed to `emit`) goes into each sink's durable outbox in batches and is sent from there in the
 * background. Nothing here is awaited by an alert, a decision or a device call. How an incident's
 * events fared is written on its timeline (`audit.delivered`, `audit.failed`, `audit.waiting`).
 */
export function createAuditStream(deps: AuditStreamDeps) {
  const { logger, clock } = deps;
  let queued: AuditEvent[] = [];
  let flushing = false;
  const refusedSingles = new Map<string, Set<string>>();

  const note = (sink: string, events: readonly AuditEvent[], def: AuditProgress, message: (n: number) => string, data: { reason?: string } = {}) => {
    const byIncident = new Map<string, string[]>();
    for (const e of events) if (e.incident_id) byIncident.set(e.incident_id, [...(byIncident.get(e.incident_id) ?? []), e.id]);
    for (const [id, ids] of byIncident) {
      if (!deps.incidents.get(id)) continue;
      try {
        deps.incidents.record(id, def, message(ids.length), { sink, ids, ...data });
      } catch (error) {
        logger.warn({ incident_id: id, err_message: errorText(error) }, 'could not note audit delivery on the timeline');
      }
    }
  };

  /** A 400 for a batch: each event alone, so one bad event does not take the good ones with it. */
  async function oneByOne(sender: AuditSender, key: string, events: readonly AuditEvent[], first: BatchResult & { ok: false }): Promise<SendResult> {
    const refused = new Set<string>();
    for (const event of events) {
      const result = await sender.send([event]);
      if (result.ok) continue;
      if (!result.permanent) return result;
      refused.add(event.id);
    }
    if (refused.size === 0) return { ok: true };
    refusedSingles.set(key, refused);
    return { ok: false, permanent: true, reason: `${refused.size} of ${events.length} events refused: ${first.reason}` };
  }

  const outboxes: { sender: AuditSender; outbox: Outbox }[] = deps.senders.map((sender) => {
    const eventsOf = (item: StoredItem) => payloadSchema.parse(item.payload).events;
    const outbox = createOutbox({
      name: `audit-${sender.sink.replace(/_/g, '-')}`,
      store: deps.openStore(`audit-${sender.sink.replace(/_/g, '-')}`),
      clock,
      logger,
      maxAttempts: deps.maxAttempts ?? 40,
      ...(deps.pollMs !== undefined ? { pollMs: deps.pollMs } : {}),
      async send(item) {
        const events = eventsOf(item);
        const result = await sender.send(events);
        if (!result.ok && result.permanent && events.length > 1) return oneByOne(sender, item.key, events, result);
        if (!result.ok && !result.permanent && item.attempts === 0) note(sender.sink, events, entries.auditWaiting, (n) => `Audit: ${n} event(s) waiting for ${sender.sink}: ${result.reason}`, { reason: result.reason });
        return result;
      },
      onFinished(item, outcome, reason) {
        const events = eventsOf(item);
        const refused = refusedSingles.get(item.key);
        refusedSingles.delete(item.key);
        const failed = outcome === 'failed' ? events.filter((e) => !refused || refused.has(e.id)) : [];
        const sent = events.filter((e) => !failed.includes(e));
        if (sent.length) note(sender.sink, sent, entries.auditDelivered, (n) => `Audit: ${n} event(s) delivered to ${sender.sink}`);
        if (failed.length) note(sender.sink, failed, entries.auditFailed, (n) => `Audit: ${n} event(s) refused by ${sender.sink}: ${reason ?? 'failed'}`, { reason: reason ?? 'failed' });
      },
    });
    return { sender, outbox };
  });

  /** Everything emitted in this turn of the event loop goes out as one batch per sink. */
  function flush(): void {
    flushing = false;
    const events = queued;
    queued = [];
    for (const { sender, outbox } of outboxes) {
      for (let i = 0; i < events.length; i += sender.batchSize) {
        const batch = events.slice(i, i + sender.batchSize);
        const key = createHash('sha256').update(batch.map((e) => e.id).join(',')).digest('hex');
        outbox.enqueue({ key, kind: sender.sink, payload: { events: batch }, units: batch.length }).catch((error: unknown) => {
          logger.error({ sink: sender.sink, err_message: errorText(error), events: batch.length }, 'audit events could not be stored for sending');
        });
      }
    }
  }

  function emit(event: AuditEvent): void {
    if (outboxes.length === 0) return;
    queued.push(event);
    if (flushing) return;
    flushing = true;
    setImmediate(flush);
  }

  const off = deps.bus.subscribe('incident.timeline', ({ incident_id, entry }) => {
    if (outboxes.length === 0 || !isAuditedEntry(entry) || !deps.owns(incident_id)) return;
    const incident = deps.incidents.get(incident_id);
    if (!incident) return;
    try {
      const event = auditEventOf({ incident, entry, timeline: upTo(deps.incidents.timeline(incident_id), entry), relay: deps.relay, ...(deps.scrub ? { scrub: deps.scrub } : {}) });
      if (event) emit(event);
    } catch (error) {
      logger.error({ incident_id, entry_type: entry.type, err_message: errorText(error) }, 'audit event could not be derived');
    }
  });

  return {
    sinks: () => outboxes.map(({ sender }) => sender.sink),
    emit,
    start: () => outboxes.forEach(({ outbox }) => outbox.start()),
    status: () => outboxes.map(({ sender, outbox }) => ({ ...outbox.status(), sink: sender.sink })),
    /** Resolves once every sink's loop has found nothing due (tests). */
    idle: async () => {
      if (flushing) flush();
      await Promise.all(outboxes.map(({ outbox }) => outbox.idle()));
    },
    async stop() {
      off();
      if (flushing) flush();
      await Promise.all(outboxes.map(({ outbox }) => outbox.stop()));
      await Promise.all(outboxes.map(({ sender }) => sender.close()));
    },
  };
}
export type AuditStream = ReturnType<typeof createAuditStream>;
