import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerDeviceTools } from '../device-tools/register-device-tools';
import type { DeviceService } from './device-service';
import { serviceDeviceTools } from './service-tools';

/**
 * The device server's MCP surface: the contract's device tools (register-device-tools.ts) over the
 * real devices, the ones the relay's device guard forwards to.
 */
export function createDeviceMcpServer(service: DeviceService): McpServer {
  const server = new McpServer(
    { name: 'fault-relay-ssh-devices', version: '1.0.0' },
    { instructions: 'Real routers over SSH. exec_cli runs one read-only show command; config_cli applies configuration lines, all or nothing.' },
  );
  const devices = service.devices().map((d) => `${d.name} (${d.platform})`).join(', ');
  registerDeviceTools(server, serviceDeviceTools(service), { devices, openWorld: true });
  return server;
}
