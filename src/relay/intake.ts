import { z } from 'zod';
import type { Logger } from 'pino';
import { dedupKeyOf, normalizeAlert } from '../alert/normalize';
import type { InboundAlert } from '../alert/schema';
import type { Clock } from '../clock';
import type { Dispatcher } from '../delivery/dispatcher';
import { newIncidentFrom, type Incidents } from '../incidents/service';

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
}

export function createIntake(opts: IntakeOptions) {
  const { incidents, dispatcher, mode, clock, logger } = opts;
  const waitMs = opts.deliveryWaitMs ?? 5000;

  return async function accept(alert: InboundAlert): Promise<AcceptedResponse> {
    const open = incidents.findOpen(dedupKeyOf(alert));
    if (open) {
      const now = clock.now();
      // One timeline line per burst, not per repeat: a storm of 1,000 alerts is one line, and no disk write each.
      const burstStarts = open.occurrences === 1 || now.getTime() - Date.parse(open.last_seen) >= BURST_GAP_MS;
      const updated = incidents.update(open.incident_id, (cur) => ({ occurrences: cur.occurrences + 1, last_seen: now.toISOString() }), { lazy: true });
      if (burstStarts) {
        incidents.record(open.incident_id, 'alert.repeated', `Same alert again (${updated.occurrences} so far)`, { occurrences: updated.occurrences });
      }
      logger.debug({ incident_id: open.incident_id, occurrences: updated.occurrences }, 'duplicate alert folded into open incident');
      return {
        status: 'duplicate',
        incident_id: updated.incident_id,
        alert_def_id: updated.alert_def_id,
        session_id: updated.session_id,
        occurrences: updated.occurrences,
      };
    }

    const incident = incidents.create(newIncidentFrom(normalizeAlert(alert), mode));

    const delivery = dispatcher.submit(incident.incident_id);
    let timer: { cancel(): void } | undefined;
    await Promise.race([delivery, new Promise<void>((resolve) => (timer = clock.setTimeout(resolve, waitMs)))]);
    timer?.cancel();

    const now = incidents.get(incident.incident_id) ?? incident;
    return {
      status: now.state === 'queued' ? 'queued' : 'accepted',
      incident_id: now.incident_id,
      alert_def_id: now.alert_def_id,
      session_id: now.session_id,
    };
  };
}

export type Intake = ReturnType<typeof createIntake>;
