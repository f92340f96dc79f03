import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { RelayConfig } from '../config/schema';
import { nodeDeviceServerLaunch, openDetachedDeviceServer, type DeviceServerLaunch } from '../adapters/devices/detached-server';
import { startDeviceServer } from '../adapters/devices/server';
import { keepDeviceServer, type DeviceServerEndpoint } from './device-server-keeper';

/** The device tool server a relay with DEVICE_INVENTORY runs for itself: where its guard's client and /health/deep reach it. */
export interface OwnDeviceServer {
  /** Where it answers now (a detached server started again answers elsewhere); the token is for the guard's client only. */
  endpoint(): DeviceServerEndpoint;
  /** Called when a detached server that went away was replaced: the client reconnects. */
  onReplaced(fn: () => void): void;
  warnings(): string[];
  blockers(): string[];
  /** On the relay's clean stop: in-process, pending changes are rolled back; detached, the server keeps their deadlines. */
  stop(): Promise<void>;
}

/**
 * Starts (or, detached, attaches to) the relay's own device tool server, or returns undefined when the
 * relay has none to run (no DEVICE_INVENTORY, or DEVICE_MCP_URL names another). Pending changes are
 * journaled under the data folder either way.
 */
export async function startOwnDeviceServer(deps: { config: RelayConfig; logger: Logger; launch?: DeviceServerLaunch; env?: NodeJS.ProcessEnv }): Promise<OwnDeviceServer | undefined> {
  const { config } = deps;
  if (config.DEVICE_MCP_URL || !config.DEVICE_INVENTORY) return undefined;
  const inventoryPath = resolve(config.DEVICE_INVENTORY);
  const stateDir = join(resolve(config.RELAY_DATA_DIR), 'device-changes');
  const logger = deps.logger.child({ component: 'devices' });
  if (config.DEVICE_SERVER_MODE === 'in-process') {
    // A relay killed with a change pending puts it back at its next start, not before: the deadline dies with it.
    const server = await startDeviceServer({ inventoryPath, port: 0, stateDir, logger });
    // Neither its URL nor its token is logged: with them any local process could drive the routers.
    logger.info({ devices: server.service.devices().map((d) => d.name) }, 'device tool server started from DEVICE_INVENTORY (loopback, bearer token held by the guard only)');
    return { endpoint: () => server, onReplaced: () => {}, warnings: () => [], blockers: () => [], stop: () => server.stop() };
  }
  const open = (resume: boolean) =>
    openDetachedDeviceServer({
      launch: deps.launch ?? nodeDeviceServerLaunch(),
      inventoryPath,
      stateDir,
      logFile: join(resolve(config.RELAY_LOG_DIR), 'device-server.log'),
      env: deps.env ?? process.env,
      logger,
      resume,
    });
  const server = await open(false);
  logger.info({ pid: server.pid, adopted: server.adopted }, server.adopted ? 'device tool server from DEVICE_INVENTORY already running (it outlived the last relay): attached to it' : 'device tool server started from DEVICE_INVENTORY as its own process (it keeps change deadlines if the relay dies)');
  // Gone while this relay is attached: started again on the same journal, pending changes keeping their deadlines.
  const kept = keepDeviceServer({ first: server, open: () => open(true), logger });
  return { ...kept, stop: async () => kept.stop() };
}
