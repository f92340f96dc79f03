import type { UiEvent } from '../renderer/bridge/contract';
import type { Bus } from '../src/core/events/bus';
import type { RelayEvents } from '../src/core/incidents/events';

/**
 * The team relay's stream, republished as the in-process relay's bus events, so the tray, the
 * notifications and the window follow a team relay exactly as they follow the laptop's own.
 */
export function teamEventsToBus(bus: Bus<RelayEvents>, onSnapshot: () => void): (event: UiEvent) => void {
  return (event) => {
    if (event.type === 'snapshot') return onSnapshot();
    const { type, ...payload } = event;
    bus.publish(type, payload);
  };
}
