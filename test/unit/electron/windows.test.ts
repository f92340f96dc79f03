import { describe, expect, it } from 'vitest';
import { hideOnClose, isSafeExternalUrl, lockDownNavigation, windowOptions } from '../../../electron/windows';

function fakeContents() {
  const handlers = new Map<string, (event: { preventDefault(): void; defaultPrevented: boolean }, url: string) => void>();
  let openHandler: ((d: { url: string }) => { action: string }) | undefined;
  const contents = {
    on: (name: string, h: never) => handlers.set(name, h),
    setWindowOpenHandler: (h: never) => void (openHandler = h),
  };
  const navigate = (url: string) => {
    const event = { defaultPrevented: false, preventDefault: () => void (event.defaultPrevented = true) };
    handlers.get('will-navigate')?.(event, url);
    return event.defaultPrevented;
  };
  return { contents, navigate, open: (url: string) => openHandler?.({ url }) };
}

describe('window security', () => {
  it('keeps contextIsolation and sandbox on and Node out of the page', () => {
    expect(windowOptions('/app/preload.cjs').webPreferences).toMatchObject({ preload: '/app/preload.cjs', contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
  });

  it('denies every navigation and window.open; only https links go to the system browser', () => {
    const external: string[] = [];
    const fake = fakeContents();
    lockDownNavigation(fake.contents as never, (url) => external.push(url));
    expect(fake.navigate('https://docs.example.net/runbook')).toBe(true);
    expect(fake.navigate('file:///etc/passwd')).toBe(true);
    expect(fake.open('https://splunk.example.net:8000/app/search')).toEqual({ action: 'deny' });
    expect(fake.open('http://plain.example.net/')).toEqual({ action: 'deny' });
    expect(fake.open('javascript:alert(1)')).toEqual({ action: 'deny' });
    expect(external).toEqual(['https://docs.example.net/runbook', 'https://splunk.example.net:8000/app/search']);
    expect(['https://a.example', 'http://a.example', 'file:///x', 'not a url'].map(isSafeExternalUrl)).toEqual([true, false, false, false]);
  });

  it('closing the window hides it (the tray keeps running) until the app quits', () => {
    let onClose: ((e: { preventDefault(): void }) => void) | undefined;
    let hidden = 0;
    let quitting = false;
    hideOnClose({ on: (_: string, h: never) => void (onClose = h), hide: () => void hidden++ } as never, () => quitting);
    let prevented = false;
    onClose?.({ preventDefault: () => void (prevented = true) });
    expect([prevented, hidden]).toEqual([true, 1]);
    quitting = true;
    prevented = false;
    onClose?.({ preventDefault: () => void (prevented = true) });
    expect([prevented, hidden]).toEqual([false, 1]);
  });
});
