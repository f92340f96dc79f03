/** One of the two files allowed to touch raw IPC (see eslint.config.js). */
import { ipcRenderer, type IpcRendererEvent } from 'electron';
import { wireName, type RendererTransport } from './contract';

export const preloadTransport: RendererTransport = {
  invoke: (channel, ...args) => ipcRenderer.invoke(wireName(channel), ...args),
  on(channel, listener) {
    // The event object stays here: it exposes `sender`, which must never reach the page.
    const handler = (_event: IpcRendererEvent, payload: Parameters<typeof listener>[0]) => listener(payload);
    ipcRenderer.on(wireName(channel), handler);
    return () => {
      ipcRenderer.removeListener(wireName(channel), handler);
    };
  },
};
