import { createRunProgress } from '../adapters/agent-tools/run-progress';
import { setUpConfirmedApply } from '../core/changes/confirmed-apply-setup';
import { inventoryAddressBook } from '../adapters/devices/inventory-lookup';
import { createMcpDeviceTools } from '../adapters/device-tools/mcp-device-tools';
import { createStrictAllowList } from '../adapters/device-tools/strict-allow-list';
import type { RelayDeps } from './relay-contract';
import type { RelayGate } from './relay-gate';
import type { RelayFoundation } from './relay-parts';

/**
 * How changes reach devices: the device tools behind the guard (given, the relay's own device
 * server, or DEVICE_MCP_URL), and every change put on provisionally, then confirmed by the RAW's
 * post-check or a person, else put back.
 */
export function relayChanges(f: RelayFoundation, gate: RelayGate, deps: RelayDeps) {
  const { config, incidents, clock, logger, deviceServer, deviceMcpUrl, artifactsDir, cluster, store } = f;
  // The device server's bearer (generated in memory, or DEVICE_MCP_TOKEN) goes to this client only.
  const ownDeviceTools = deps.deviceTools || !deviceMcpUrl ? undefined : deviceServer ? createMcpDeviceTools(() => { const e = deviceServer.endpoint(); return { url: e.mcpUrl, token: e.token }; }) : createMcpDeviceTools(deviceMcpUrl, { token: config.DEVICE_MCP_TOKEN });
  // A detached server started again answers at a new address with a new token: the next call connects there.
  if (deviceServer && ownDeviceTools) deviceServer.onReplaced(() => void ownDeviceTools.close());
  const deviceTools = deps.deviceTools ?? ownDeviceTools;
  const runProgress = createRunProgress({ incidents, artifactsDir, logger, now: () => clock.now() });
  const { approvals, quarantine } = gate;
  const confirmed = deviceTools
    ? setUpConfirmedApply({ incidents, upstream: deviceTools, artifactsDir, defaultWithinS: config.CONFIRM_WITHIN_S, clock, logger, owns: cluster.owns, tell: approvals.tellRoom, ended: quarantine.afterChange, unlearned: quarantine.unlearned, ...(deps.postCheckPaceS !== undefined ? { maxPaceS: deps.postCheckPaceS } : {}), addressBook: deps.addressBook ?? (config.DEVICE_INVENTORY ? inventoryAddressBook(config.DEVICE_INVENTORY) : undefined), ...(store.writesBehind ? { durable: () => store.flush() } : {}) })
    : undefined;
  const strictAllowList = createStrictAllowList({ incidents, artifactsDir, logger });
  return { ownDeviceTools, deviceTools, runProgress, confirmed, strictAllowList };
}
export type RelayChanges = ReturnType<typeof relayChanges>;
