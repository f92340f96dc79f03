import { createBus } from '../../../src/core/events/bus';
import type { Clock } from '../../../src/core/clock';
import type { RelayEvents } from '../../../src/core/incidents/events';
import { createMemoryBackend, createPersistentStore } from '../../../src/core/incidents/persistent-store';
import { createIncidents } from '../../../src/core/incidents/service';
import { silent } from '../../helpers/relay';

/** A clock the test moves by hand; timers fire only when `advance` passes them. */
export function manualClock(startIso = '2026-11-21T10:00:00.000Z') {
  let now = Date.parse(startIso);
  const timers = new Set<{ at: number; fn: () => void }>();
  const clock: Clock & { advance(ms: number): void; pending(): number } = {
    now: () => new Date(now),
    setTimeout(fn, ms) {
      const t = { at: now + ms, fn };
      timers.add(t);
      return { cancel: () => timers.delete(t) };
    },
    advance(ms) {
      now += ms;
      for (const t of [...timers].sort((a, b) => a.at - b.at)) {
        if (t.at > now) continue;
        timers.delete(t);
        t.fn();
      }
    },
    pending: () => timers.size,
  };
  return clock;
}

/** The relay's real incident service on an in-memory store, with its bus. */
export function inMemoryIncidents(clock: Clock = manualClock()) {
  const bus = createBus<RelayEvents>((error) => {
    throw error;
  });
  const store = createPersistentStore({ backend: createMemoryBackend(), retention: 100, logger: silent });
  const incidents = createIncidents({ store, bus, clock, logger: silent });
  let n = 0;
  /** An incident as the dispatcher leaves it: session attached, prompt sent, running. */
  const running = (sessionId: string | null, over: { alert_def_id?: string; device?: string; alert_vars?: Record<string, string> } = {}) => {
    n += 1;
    const created = incidents.create({
      alert_def_id: over.alert_def_id ?? 'AD000002',
      device_hostname: over.device ?? 'R1',
      mode: 'strict',
      warnings: [],
      alert_vars: over.alert_vars ?? { neighbor_ip: '10.0.0.2', vrf_name: 'default' },
      dedup_key: `key-${n}`,
      promptTextFor: (id) => `{"incident_id":"${id}"}`,
    });
    return incidents.transition(created.incident_id, 'deliver', () => ({ session_id: sessionId }));
  };
  return { bus, store, incidents, running };
}
