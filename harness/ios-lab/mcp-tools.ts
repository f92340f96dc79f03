import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerDeviceTools } from '../../src/adapters/device-tools/register-device-tools';
import type { Lab } from './lab';
import { createLabDeviceTools } from './lab-device-tools';

/**
 * The lab's MCP surface: the contract's device tools (register-device-tools.ts), the same the device
 * server registers, over the simulated routers. A refusal's text is what a router or an automation
 * tool would print, after its kind.
 */
export function createLabMcpServer(lab: Lab): McpServer {
  const server = new McpServer(
    { name: 'fault-relay-device-lab', version: '1.0.0' },
    { instructions: 'Simulated IOS-XE routers. exec_cli runs one read-only show command; config_cli applies configuration lines.' },
  );
  registerDeviceTools(server, createLabDeviceTools(lab), { devices: lab.devices().map((d) => `${d.hostname} (iosxe)`).join(', '), openWorld: false });
  return server;
}
