import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { hideOnClose, isSafeExternalUrl, lockDownNavigation } from '../../../electron/windows';

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
  it('states sandbox, contextIsolation, nodeIntegration off and webSecurity literally at the BrowserWindow call, where scanners look', () => {
    const main = readFileSync('electron/main.ts', 'utf8');
    const call = /new BrowserWindow\(\{[\s\S]*?\n {6}\}\);/.exec(main)?.[0] ?? '';
    expect(main.match(/new BrowserWindow\(/g)).toHaveLength(1);
    for (const literal of ['sandbox: true', 'contextIsolation: true', 'nodeIntegration: false', 'nodeIntegrationInWorker: false', 'webSecurity: true', 'allowRunningInsecureContent: false']) {
      expect(call, literal).toContain(literal);
    }
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

  it('without a visible tray, closing minimizes instead of hiding: the app never disappears', () => {
    let onClose: ((e: { preventDefault(): void }) => void) | undefined;
    const calls: string[] = [];
    hideOnClose({ on: (_: string, h: never) => void (onClose = h), hide: () => void calls.push('hide'), minimize: () => void calls.push('minimize') } as never, () => false, false);
    onClose?.({ preventDefault: () => {} });
    expect(calls).toEqual(['minimize']);
  });
});
