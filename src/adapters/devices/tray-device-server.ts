import type { Logger } from 'pino';
import type { DeviceServerLaunch } from './detached-server';
import { SUPERVISED_FLAG, supervisedMain } from './supervised';

/** The argument that makes the tray's executable run as the detached device server instead of the tray. */
export const TRAY_DEVICE_SERVER_FLAG = '--fault-relay-device-server';

/**
 * How the tray starts its device server: its own executable again (a packaged app cannot run as plain
 * Node), with the flag main.ts looks for before anything else. Unpackaged, Electron needs the app folder first.
 * An AppImage is started as the AppImage file: the tray's own mount of it goes when the tray does.
 */
export function trayDeviceServerLaunch(app: { isPackaged: boolean; getAppPath(): string }, execPath: string, appImage?: string): DeviceServerLaunch {
  return { command: appImage ?? execPath, args: [...(app.isPackaged ? [] : [app.getAppPath()]), TRAY_DEVICE_SERVER_FLAG, SUPERVISED_FLAG] };
}

export const isTrayDeviceServer = (argv: readonly string[]) => argv.includes(TRAY_DEVICE_SERVER_FLAG);

/**
 * The tray's executable started as the device server: no window, no tray icon, no single-instance lock
 * (the tray holds that); it ends (`exit`) when the server stops by itself or on SIGTERM.
 */
export function runTrayDeviceServer(deps: { argv: readonly string[]; logger: Logger; exit(code: number): void; hideDock?: () => void }): void {
  deps.hideDock?.();
  supervisedMain([...deps.argv], deps.logger, deps.exit).catch((error: unknown) => {
    deps.logger.fatal({ err: error }, 'the device server did not start');
    deps.exit(1);
  });
}
