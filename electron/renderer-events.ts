import type { UiEvent } from '../renderer/bridge/contract';
import type { Bus } from '../src/core/events/bus';
import { STREAMED_EVENTS, type RelayEvents } from '../src/core/events/relay-events';

const FOR_THE_UI: ReadonlySet<string> = new Set(STREAMED_EVENTS);

/** The relay's bus, as the renderer's live events (the same ones `/events` streams). */
export function forwardRelayEvents(bus: Bus<RelayEvents>, send: (event: UiEvent) => void): () => void {
  return bus.subscribeAll((type, payload) => {
    if (FOR_THE_UI.has(type)) send({ type, ...(payload as object) } as UiEvent);
  });
}
