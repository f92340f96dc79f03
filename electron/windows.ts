import type { BrowserWindow, BrowserWindowConstructorOptions, WebContents } from 'electron';

/** Electron's secure defaults, stated so a later change cannot drop one silently. */
export function windowOptions(preload: string): BrowserWindowConstructorOptions {
  return {
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Fault Relay',
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false,
    },
  };
}

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

/** Closing the window hides it: the tray, the relay and its notifications keep running. */
export function hideOnClose(window: Pick<BrowserWindow, 'on' | 'hide'>, isQuitting: () => boolean): void {
  window.on('close', (event) => {
    if (isQuitting()) return;
    event.preventDefault();
    window.hide();
  });
}
