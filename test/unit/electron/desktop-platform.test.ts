import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APP_ID, denyAllPermissions, setUpPlatform, startsHidden, trayIsVisible } from '../../../electron/desktop-platform';

const builder = parse(readFileSync('electron-builder.yml', 'utf8')) as Record<string, Record<string, unknown>> & { appId: string };

describe('desktop platforms', () => {
  it('Windows: the AppUserModelID is the installer\'s app id, so notifications and their buttons work', () => {
    const calls: string[] = [];
    setUpPlatform({ app: { setAppUserModelId: (id: string) => void calls.push(id) }, platform: 'win32' });
    setUpPlatform({ app: { setAppUserModelId: (id: string) => void calls.push(id) }, platform: 'linux' });
    expect(calls).toEqual([APP_ID]);
    expect(builder.appId).toBe(APP_ID);
  });

  it('denies every permission a page can ask for', () => {
    const answers: boolean[] = [];
    let check: (() => boolean) | undefined;
    let device: (() => boolean) | undefined;
    denyAllPermissions({
      setPermissionRequestHandler: (h: never) => {
        for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'hid', 'serial', 'openExternal']) {
          (h as (c: unknown, p: string, cb: (ok: boolean) => void) => void)({}, permission, (ok) => answers.push(ok));
        }
      },
      setPermissionCheckHandler: (h: never) => void (check = h),
      setDevicePermissionHandler: (h: never) => void (device = h),
    });
    expect(answers).toEqual(Array(7).fill(false));
    expect(check?.()).toBe(false);
    expect(device?.()).toBe(false);
  });

  it('Linux without a tray area (vanilla GNOME): the window shows, also when autostarted --hidden', () => {
    const gnome = { platform: 'linux' as const, env: { XDG_CURRENT_DESKTOP: 'ubuntu:GNOME' } };
    expect(trayIsVisible({ ...gnome, statusNotifierWatcher: false })).toBe(false);
    expect(trayIsVisible({ ...gnome, statusNotifierWatcher: undefined })).toBe(false);
    expect(trayIsVisible({ ...gnome, statusNotifierWatcher: true })).toBe(true);
    expect(trayIsVisible({ platform: 'linux', env: { XDG_CURRENT_DESKTOP: 'KDE' }, statusNotifierWatcher: undefined })).toBe(true);
    expect(trayIsVisible({ platform: 'darwin', env: {}, statusNotifierWatcher: undefined })).toBe(true);
    expect(startsHidden(['fault-relay', '--hidden'], false)).toBe(false);
    expect(startsHidden(['fault-relay', '--hidden'], true)).toBe(true);
    expect(startsHidden(['fault-relay'], true)).toBe(false);
  });

  it('packaging: deb is the Linux target with electron-builder\'s default dependencies, fuses lock the app down', () => {
    expect(builder.linux?.target).toEqual(['deb']);
    // A `depends` list replaces electron-builder's defaults (GTK, NSS, libnotify…): it must not be set.
    expect(builder.deb?.depends).toBeUndefined();
    expect(builder.electronFuses).toMatchObject({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
  });

  it('packaging: macOS asks for alert-style notifications (they keep their buttons) with the entitlements a hardened runtime needs', () => {
    expect(builder.mac).toMatchObject({ hardenedRuntime: true, entitlements: 'electron/assets/entitlements.mac.plist', extendInfo: { NSUserNotificationAlertStyle: 'alert' } });
    const plist = readFileSync('electron/assets/entitlements.mac.plist', 'utf8');
    expect(plist).toContain('com.apple.security.cs.allow-jit');
  });
});
