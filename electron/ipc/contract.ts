/**
 * The one IPC contract. Request/response channels are named after the Bridge methods they
 * serve, so the renderer's contract and the wire cannot drift apart; one-way channels carry
 * what the main process pushes. Both processes import this file; only the two wrappers
 * (main-ipc.ts, preload-ipc.ts) put these names on the wire.
 */
import type { Bridge, UiEvent } from '../../renderer/bridge/contract';

/** Request/response: `invoke(channel, ...args)` answers `ResultOf<channel>`. The tray pages no archive (`listOlder`). */
export type RequestChannels = Omit<Bridge, 'kind' | 'canDecide' | 'subscribe' | 'onOpenIncident' | 'listOlder'>;
export type RequestChannel = keyof RequestChannels;
export type ArgsOf<K extends RequestChannel> = Parameters<RequestChannels[K]>;
export type ResultOf<K extends RequestChannel> = Awaited<ReturnType<RequestChannels[K]>>;

/** One-way, main → renderer. */
export interface EventChannels {
  'relay-event': UiEvent;
  /** Show this incident (a notification click, a tray approval item). */
  'open-incident': string;
}
export type EventChannel = keyof EventChannels;

/** What the preload needs from the raw wrapper; tests pass a fake. */
export interface RendererTransport {
  invoke<K extends RequestChannel>(channel: K, ...args: ArgsOf<K>): Promise<ResultOf<K>>;
  on<K extends EventChannel>(channel: K, listener: (payload: EventChannels[K]) => void): () => void;
}

/** Our channels are prefixed so no library's IPC can collide with them. */
export const wireName = (channel: RequestChannel | EventChannel) => `fault-relay:${channel}`;
