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

/** Registrations of this bot kept when making room (Webex's SDK keeps a few too). */
const KEEP_NEWEST = 3;

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
    try {
      device = await http.call('POST', `${devicesUrl}?includeUpstreamServices=all`, connectableDeviceSchema, registrationBody);
    } catch (error) {
      if (!(error instanceof WebexApiError && error.isExcessiveDevices)) throw error;
      // As Webex's own SDK does: make room by deleting this bot's oldest registrations of our type, then once more.
      await deleteOldest();
      device = await http.call('POST', `${devicesUrl}?includeUpstreamServices=all`, connectableDeviceSchema, registrationBody);
    }
    logger.info({ device: deviceName }, 'webex device registered');
    return device;
  }

  /** Deletes the oldest of this bot's devices of our device type, keeping the newest few. */
  async function deleteOldest(): Promise<void> {
    const { devices } = await http.call('GET', devicesUrl, deviceListSchema);
    const ours = devices
      .filter((d) => d.deviceType === registrationBody.deviceType)
      .sort((a, b) => (a.modificationTime ?? '').localeCompare(b.modificationTime ?? ''));
    const doomed = ours.slice(0, Math.max(1, ours.length - KEEP_NEWEST));
    logger.warn({ deleted: doomed.length, of: ours.length }, 'webex refused a registration (too many devices): deleting the oldest registrations of this bot');
    for (const d of doomed) {
      try {
        await http.send('DELETE', d.url);
      } catch (error) {
        if (!(error instanceof WebexApiError && error.status === 404)) throw error;
      }
    }
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
      // Retried already (5xx, unreachable, a body it will not take): a fresh registration instead.
      if (error instanceof WebexApiError && !error.isAuthFailure && (error.status === undefined || error.status >= 400)) {
        logger.warn({ device: deviceName, err: error.message }, 'webex device refresh keeps failing; registering a fresh device');
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
