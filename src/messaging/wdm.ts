import type { Logger } from 'pino';
import { connectableDeviceSchema, deviceListSchema, type ConnectableDevice, type Device } from './schemas';
import { WebexApiError, type WebexHttp } from './webex-http';

export interface DeviceManager {
  /** Reuse the device named like ours (refreshing it), else register one. */
  ensure(): Promise<ConnectableDevice>;
  /** Register a fresh device: the old one is gone (404) or unusable. */
  reregister(): Promise<ConnectableDevice>;
  /** Delete our device; a device that is already gone is fine. */
  unregister(): Promise<void>;
  current(): ConnectableDevice | undefined;
}

// Fields the device service owns and refuses to take back on refresh.
const NOT_REFRESHABLE = ['features', 'mediaCluster', 'etag'];

export function createDeviceManager(opts: {
  http: WebexHttp;
  wdmUrl: string;
  deviceName: string;
  logger: Logger;
}): DeviceManager {
  const { http, logger, deviceName } = opts;
  const devicesUrl = `${opts.wdmUrl}/devices`;
  let device: ConnectableDevice | undefined;

  const registrationBody = {
    name: deviceName,
    deviceName,
    deviceType: 'DESKTOP',
    model: 'nodejs',
    localizedModel: 'nodejs',
    systemName: 'fault-relay',
    systemVersion: '1.0',
  };

  async function register(): Promise<ConnectableDevice> {
    device = await http.call('POST', `${devicesUrl}?includeUpstreamServices=all`, connectableDeviceSchema, registrationBody);
    logger.info({ device: deviceName }, 'webex device registered');
    return device;
  }

  async function refresh(existing: Device): Promise<ConnectableDevice> {
    const body = Object.fromEntries(Object.entries(existing).filter(([k]) => !NOT_REFRESHABLE.includes(k)));
    try {
      device = await http.call('PUT', `${existing.url}?includeUpstreamServices=all`, connectableDeviceSchema, body);
      logger.info({ device: deviceName }, 'webex device reused');
      return device;
    } catch (error) {
      if (error instanceof WebexApiError && error.status === 404) {
        logger.info({ device: deviceName }, 'webex device vanished on refresh; registering again');
        return register();
      }
      throw error;
    }
  }

  return {
    async ensure() {
      const { devices } = await http.call('GET', devicesUrl, deviceListSchema);
      const mine = devices
        .filter((d) => d.name === deviceName)
        .sort((a, b) => (b.modificationTime ?? '').localeCompare(a.modificationTime ?? ''))[0];
      return mine ? refresh(mine) : register();
    },
    reregister: register,
    async unregister() {
      const url = device?.url;
      device = undefined;
      if (!url) return;
      try {
        await http.send('DELETE', url);
        logger.info({ device: deviceName }, 'webex device deleted');
      } catch (error) {
        if (error instanceof WebexApiError && error.status === 404) return;
        throw error;
      }
    },
    current: () => device,
  };
}
