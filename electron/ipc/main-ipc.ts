/** One of the two files allowed to touch raw IPC (see eslint.config.js). */
import { ipcMain, type WebContents } from 'electron';
import { wireName, type EventChannel, type EventChannels, type RequestChannel } from './contract';
import type { IpcHandler } from './handlers';

/** Registers the checked handlers; returns the function that removes them again. */
export function serveIpc(handlers: Record<RequestChannel, IpcHandler>): () => void {
  const channels = Object.keys(handlers) as RequestChannel[];
  for (const channel of channels) ipcMain.handle(wireName(channel), (event, ...args) => handlers[channel](event, ...args));
  return () => channels.forEach((channel) => ipcMain.removeHandler(wireName(channel)));
}

/** Pushes a one-way message to our window; a closed window simply misses it. */
export function sendToRenderer<K extends EventChannel>(target: WebContents, channel: K, payload: EventChannels[K]): void {
  if (!target.isDestroyed()) target.send(wireName(channel), payload);
}
