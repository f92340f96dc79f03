import type { App, Session } from 'electron';

/** The installer's app id: Windows ties notifications (and their buttons) to it. Same as electron-builder.yml. */
export const APP_ID = 'net.faultrelay.tray';

/**
 * Per-platform start-up. Windows shows a packaged app's notifications, with their Approve / Deny
 * buttons, only for the AppUserModelID its installer registered.
 */
export function setUpPlatform(deps: { app: Pick<App, 'setAppUserModelId'>; platform: NodeJS.Platform }): void {
  if (deps.platform === 'win32') deps.app.setAppUserModelId(APP_ID);
}

/**
 * The UI uses no camera, microphone, geolocation, notifications-from-the-page, clipboard-read,
 * MIDI, HID, serial or anything else a page can ask for: every request and check is denied.
 */
export function denyAllPermissions(session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'setDevicePermissionHandler'>): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}

/**
 * Whether a tray icon will be seen. Vanilla GNOME has no status area: Electron creates the icon
 * and nobody can click it. There, the app keeps its window instead of hiding in the tray.
 * `statusNotifierWatcher`: whether the session bus has org.kde.StatusNotifierWatcher (undefined:
 * could not ask).
 */
export function trayIsVisible(deps: { platform: NodeJS.Platform; env: Record<string, string | undefined>; statusNotifierWatcher: boolean | undefined }): boolean {
  if (deps.platform !== 'linux') return true;
  if (deps.statusNotifierWatcher !== undefined) return deps.statusNotifierWatcher;
  // Without an answer from the bus: GNOME hides tray icons unless an extension adds them back.
  return !/gnome/i.test(deps.env.XDG_CURRENT_DESKTOP ?? '');
}

/** `--hidden` (autostart) starts in the tray only when the tray can be seen; otherwise the window shows. */
export const startsHidden = (argv: readonly string[], trayVisible: boolean) => trayVisible && argv.includes('--hidden');
