/**
 * Bundled to one CommonJS file (sandboxed preloads cannot load modules), it gives the page
 * exactly the Bridge and nothing of Node or Electron.
 */
import { contextBridge } from 'electron';
import { createDesktopBridge } from './ipc/desktop-bridge';
import { preloadTransport } from './ipc/preload-ipc';

contextBridge.exposeInMainWorld('faultRelay', createDesktopBridge(preloadTransport));
