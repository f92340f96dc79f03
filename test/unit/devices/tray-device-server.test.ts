import { describe, expect, it } from 'vitest';
import { isTrayDeviceServer, trayDeviceServerLaunch } from '../../../src/adapters/devices/tray-device-server';

describe('how the tray starts its detached device server', () => {
  it('runs its own executable with the device-server flag: the app folder first when unpackaged, the AppImage file when there is one', () => {
    const unpackaged = trayDeviceServerLaunch({ isPackaged: false, getAppPath: () => '/src/fault-relay' }, '/x/electron');
    expect(unpackaged).toEqual({ command: '/x/electron', args: ['/src/fault-relay', '--fault-relay-device-server', '--supervised'] });
    expect(isTrayDeviceServer(['/x/electron', ...unpackaged.args])).toBe(true);
    expect(trayDeviceServerLaunch({ isPackaged: true, getAppPath: () => '/opt/app.asar' }, '/opt/fault-relay')).toEqual({ command: '/opt/fault-relay', args: ['--fault-relay-device-server', '--supervised'] });
    expect(trayDeviceServerLaunch({ isPackaged: true, getAppPath: () => '/tmp/.mount_x/app.asar' }, '/tmp/.mount_x/fault-relay', '/home/a/Fault-Relay.AppImage').command).toBe('/home/a/Fault-Relay.AppImage');
    expect(isTrayDeviceServer(['/opt/fault-relay', '--hidden'])).toBe(false);
  });
});
