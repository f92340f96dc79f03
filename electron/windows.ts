import type { BrowserWindow, BrowserWindowConstructorOptions, WebContents } from 'electron';

/**
 * The window's size and look. Its security options are written out at the `new BrowserWindow`
 * call in main.ts, literally, where static scanners (electronegativity) look for them.
 */
export const WINDOW_SIZE = { width: 1200, height: 800, minWidth: 720, minHeight: 480, show: false, title: 'Fault Relay' } satisfies BrowserWindowConstructorOptions;

/** Only https links leave the app, and only to the system browser. */
export function isSafeExternalUrl(url: string): boolean {
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The window never navigates away from our renderer and never opens another window: a link
 * to the outside goes to the system browser when it is https, and nowhere otherwise.
 */
export function lockDownNavigation(contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>, openExternal: (url: string) => void): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    if (isSafeExternalUrl(url)) openExternal(url);
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * Closing the window hides it in the tray, where one can be seen: the relay and its notifications
 * keep running. Without a visible tray it is minimized instead, so the app never becomes invisible.
 */
export function hideOnClose(window: Pick<BrowserWindow, 'on' | 'hide' | 'minimize'>, isQuitting: () => boolean, trayVisible = true): void {
  window.on('close', (event) => {
    if (isQuitting()) return;
    event.preventDefault();
    if (trayVisible) window.hide();
    else window.minimize();
  });
}
