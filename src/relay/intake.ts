import { z } from 'zod';
import type { Logger } from 'pino';
import type { NormalizedAlert, SourcedAlert } from '../core/incidents/alert-source';
import type { PromptPlanDevice } from '../core/incidents/agent-prompt';
import type { FoundDevice } from '../runbooks/plan-devices';
import type { Clock } from '../core/clock';
import type { Dispatcher } from '../core/delivery/dispatcher';
import type { Incident } from '../core/incidents/model';
import { newIncidentFrom, type Incidents } from '../core/incidents/service';
import { StoreUnavailableError } from '../core/incidents/store';
import { traceRepeat } from '../adapters/telemetry/incident-trace';
import { HttpError } from './errors';
import { entries } from '../core/events/timeline-entries';

export const acceptedResponseSchema = z.object({
  status: z.enum(['accepted', 'queued', 'duplicate']),
  incident_id: z.string(),
  alert_def_id: z.string(),
  session_id: z.string().nullable(),
  occurrences: z.number().int().optional(),
});
export type AcceptedResponse = z.infer<typeof acceptedResponseSchema>;

/** Repeats closer together than this are one burst: one timeline line, at its first repeat. */
export const BURST_GAP_MS = 60_000;

export interface IntakeOptions {
  incidents: Incidents;
  dispatcher: Dispatcher;
  mode: 'strict' | 'hybrid';
  clock: Clock;
  logger: Logger;
  /** How long the sender waits for the session before the answer is `queued`. */
  deliveryWaitMs?: number;
  /** Resolves when what the intake wrote is durable (the store's flush): the 202 waits for it. */
  durable?: () => Promise<void>;
  /**
   * Team relays: runs a new-incident intake under the fault's lock, shared by every relay on the
   * database, after reading that database's open incident for the fault, so two relays receiving
   * the same new fault at once make one incident (different faults do not wait for each other).
   */
  newIncidentLock?: <T>(dedupKey: string, fn: () => Promise<T>) => Promise<T>;
  /** The devices the alert's RAW lets a plan change, found by the relay (alert inputs + inventory): named in the prompt. */
  planDevicesFor?: (alert: NormalizedAlert) => Promise<FoundDevice[]>;
}

export function createIntake(opts: IntakeOptions) {
  const { incidents, dispatcher, mode, clock, logger } = opts;
  const waitMs = opts.deliveryWaitMs ?? 5000;

  const durable = opts.durable;
  const newIncidentLock = opts.newIncidentLock ?? (<T>(_key: string, fn: () => Promise<T>) => fn());
  const madeDurable = durableOrRefused(durable);

  /**
   * Faults whose new incident this relay answered 503 (its record stays queued here and is
   * written when the database is back, or folded into another relay's): the next alert of that
   * fault here is taken to be the sender's retry and is not counted again. A 503 counts nothing.
   */
  const refusedCreations = new Set<string>();

  /** A firing alert from any source (src/core/incidents/alert-source.ts): its key decides repeat or new incident. */
  return async function accept(alert: SourcedAlert): Promise<AcceptedResponse> {
    const key = alert.dedup_key;
    const open = incidents.findOpen(key);
    if (open) return foldDuplicate(open);
    // Looked up before the lock (it reads the RAW): a lookup that fails names no device, and the guard still decides.
    const found = opts.planDevicesFor ? await opts.planDevicesFor(alert.normalized()).catch(() => []) : [];
    const planDevices = found.flatMap((f): PromptPlanDevice[] => ('device' in f ? [{ role: f.role, device: f.device }] : []));
    // The lock covers creating the incident and making it durable, not its delivery: a relay
    // waiting for its runtime must not hold up the same fault's alert on another relay.
    const outcome = await newIncidentLock(key, async (): Promise<AcceptedResponse | Incident> => {
      // Another relay may have opened it while this one waited for the lock.
      const meanwhile = incidents.findOpen(key);
      return meanwhile ? foldDuplicate(meanwhile) : createDurably(alert, planDevices);
    }).catch((error: unknown) => {
      throw error instanceof StoreUnavailableError ? refused(error) : error;
    });
    return 'status' in outcome ? outcome : answerNew({ incidents, dispatcher, clock, waitMs }, outcome);
  };

  async function foldDuplicate(open: Incident): Promise<AcceptedResponse> {
    const now = clock.now();
    // Taken at once: of two alerts arriving together, one is the retry and the other is counted.
    const retry = refusedCreations.delete(open.dedup_key);
    // One timeline line per burst, not per repeat: a storm of 1,000 alerts is one line, and no disk write each.
    const burstStarts = !retry && (open.occurrences === 1 || now.getTime() - Date.parse(open.last_seen) >= BURST_GAP_MS);
    const updated = incidents.update(open.incident_id, (cur) => ({ occurrences: cur.occurrences + (retry ? 0 : 1), last_seen: now.toISOString() }), { lazy: true });
    // The laptop's store is durable when the write returns: nothing more on its hot path.
    if (durable) {
      try {
        await madeDurable();
      } catch (error) {
        // Refused: the sender retries, and only that one is counted (the increment is taken back).
        if (retry) refusedCreations.add(open.dedup_key);
        else if (incidents.get(open.incident_id)) incidents.update(open.incident_id, (cur) => ({ occurrences: Math.max(1, cur.occurrences - 1) }), { lazy: true });
        throw error;
      }
      // An earlier attempt of this alert may have been answered 503 before its delivery began.
      if (updated.state === 'queued') dispatcher.kick();
    }
    // After the durability point: a line about a repeat answered 503 would count it at a restart.
    if (burstStarts && incidents.get(open.incident_id)) {
      incidents.record(open.incident_id, entries.alertRepeated, `Same alert again (${updated.occurrences} so far)`, { occurrences: updated.occurrences });
    }
    // Every repeat, not only a burst's first: the incident's trace shows each request that brought one.
    if (incidents.get(open.incident_id)) traceRepeat(updated);
    logger.debug({ incident_id: open.incident_id, occurrences: updated.occurrences }, 'duplicate alert folded into open incident');
    return incidents.get(open.incident_id) ? duplicateOf(updated) : survivorOf(open);
  }

  // (Declarations: they are reached after the `return` above.)
  /**
   * An incident folded while it was written (another relay's open incident for the fault, made
   * while this one could not reach the database): its alerts are counted on that one, and the
   * answer names it, never an id this relay no longer holds.
   */
  function survivorOf(folded: Incident): AcceptedResponse {
    const survivor = incidents.findOpen(folded.dedup_key);
    if (!survivor) throw refused(new StoreUnavailableError(`the incident ${folded.incident_id} was not kept by the database`));
    return duplicateOf(survivor);
  }

  async function createDurably(alert: SourcedAlert, planDevices: PromptPlanDevice[]): Promise<Incident | AcceptedResponse> {
    const incident = incidents.create(newIncidentFrom(alert.normalized(), mode, 'relay', planDevices));
    try {
      await madeDurable();
    } catch (error) {
      // Stays queued in memory: the retry folds onto it (uncounted, see above), and delivery follows.
      refusedCreations.add(incident.dedup_key);
      // Bounded: an outage's worth of faults, the oldest forgotten first.
      if (refusedCreations.size > 10_000) refusedCreations.delete(refusedCreations.values().next().value as string);
      throw error;
    }
    refusedCreations.delete(incident.dedup_key);
    return incidents.get(incident.incident_id) ? incident : survivorOf(incident);
  }
}

/** The sender is refused with 503 when the store cannot say the alert is kept: it sends it again. */
function refused(error: StoreUnavailableError): HttpError {
  return new HttpError(503, 'store_unavailable', `${error.message}. The alert was not accepted; send it again (alert senders retry on 503).`, undefined, { 'retry-after': '5' });
}

/** Nothing is answered 202 before it is durable; a store that cannot say so makes the sender retry. */
function durableOrRefused(durable: (() => Promise<void>) | undefined) {
  return async () => {
    if (!durable) return;
    try {
      await durable();
    } catch (error) {
      throw error instanceof StoreUnavailableError ? refused(error) : error;
    }
  };
}

/** The answer for a repeat: the open incident it was counted on. */
function duplicateOf(i: Incident): AcceptedResponse {
  return { status: 'duplicate', incident_id: i.incident_id, alert_def_id: i.alert_def_id, session_id: i.session_id, occurrences: i.occurrences };
}

/** A new incident's answer: `accepted` once its session exists, `queued` when it does not within the wait. */
async function answerNew(d: Pick<IntakeOptions, 'incidents' | 'dispatcher' | 'clock'> & { waitMs: number }, incident: Incident): Promise<AcceptedResponse> {
  const delivery = d.dispatcher.submit(incident.incident_id);
  let timer: { cancel(): void } | undefined;
  await Promise.race([delivery, new Promise<void>((resolve) => (timer = d.clock.setTimeout(resolve, d.waitMs)))]);
  timer?.cancel();

  const now = d.incidents.get(incident.incident_id) ?? incident;
  return {
    status: now.state === 'queued' ? 'queued' : 'accepted',
    incident_id: now.incident_id,
    alert_def_id: now.alert_def_id,
    session_id: now.session_id,
  };
}

export type Intake = ReturnType<typeof createIntake>;
