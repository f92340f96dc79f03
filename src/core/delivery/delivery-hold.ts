import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Incidents } from '../incidents/service';
import { entries } from '../events/timeline-entries';

/** While runs are held, how often the hold is looked at again: a restored file lets them go by itself. */
const HOLD_RECHECK_MS = 2_000;

/**
 * Holds every run while a check names a reason (the embedded runtime's agent files differ from what
 * the relay ships). A held incident stays queued, untouched, and says so once per reason.
 */
export function createDeliveryHold(deps: { incidents: Incidents; clock: Clock; recheck: () => void }) {
  const { incidents, clock } = deps;
  /** Why no run may start now, or null. */
  let holdCheck: (() => string | null) | undefined;
  /** The hold already written on each incident's timeline: one line per reason, not one per recheck. */
  const heldFor = new Map<string, string>();
  /** Its own timer, not the backoff's: a held queue still takes (and holds, saying so) each new alert. */
  let holdTimer: { cancel(): void } | null = null;
  let stopped = false;

  return {
    set(check: () => string | null) {
      holdCheck = check;
    },
    reason: (): string | null => holdCheck?.() ?? null,
    /** True when this incident's delivery is held now; a hold that lifted is noted on its timeline. */
    holds(incidentId: string, log: Logger): boolean {
      const held = holdCheck?.();
      if (held) {
        if (heldFor.get(incidentId) !== held) {
          heldFor.set(incidentId, held);
          incidents.update(incidentId, (cur) => ({ delivery: { ...cur.delivery, last_error: held } }));
          incidents.record(incidentId, entries.deliveryHeld, `Not delivered: ${held}. The incident stays queued and goes out once the runtime is as shipped.`, { reason: held });
          log.error(`run held: ${held}`);
        }
        holdTimer ??= stopped
          ? null
          : clock.setTimeout(() => {
              holdTimer = null;
              deps.recheck();
            }, HOLD_RECHECK_MS);
        return true;
      }
      if (heldFor.delete(incidentId)) {
        incidents.update(incidentId, (cur) => ({ delivery: { ...cur.delivery, last_error: null } }));
        incidents.record(incidentId, entries.deliveryResumed, 'The runtime is as shipped again: delivering.');
      }
      return false;
    },
    stop() {
      stopped = true;
      holdTimer?.cancel();
    },
  };
}
export type DeliveryHold = ReturnType<typeof createDeliveryHold>;
