import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Lab } from './lab';

/**
 * The lab's MCP surface: exactly the two device tools the agents and the relay's
 * device-tool guard know. Errors come back as tool errors (`isError: true`) carrying
 * the text a router or an automation tool would print.
 */
export function createLabMcpServer(lab: Lab): McpServer {
  const server = new McpServer(
    { name: 'fault-relay-device-lab', version: '1.0.0' },
    { instructions: 'Simulated IOS-XE routers. exec_cli runs one read-only show command; config_cli applies configuration lines.' },
  );

  server.registerTool(
    'exec_cli',
    {
      title: 'Run a show command',
      description:
        'Runs one read-only IOS-XE exec command (show …, optionally with | include/section/begin/exclude) on a device from the inventory and returns its output.',
      inputSchema: {
        device: z.string().min(1).describe('Device hostname as in the inventory, e.g. R1'),
        command: z.string().min(1).describe('One show command, e.g. "show ip bgp summary"'),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ device, command }) => {
      const r = lab.exec(device, command);
      return r.ok ? { content: [{ type: 'text', text: r.output }] } : { isError: true, content: [{ type: 'text', text: r.error }] };
    },
  );

  server.registerTool(
    'config_cli',
    {
      title: 'Apply configuration lines',
      description:
        'Applies IOS-XE configuration lines in configuration mode (e.g. ["router bgp 65001", "no neighbor 10.0.0.2 shutdown"]). All lines apply or, if one is rejected, none. Needs an operator approval first.',
      inputSchema: {
        device: z.string().min(1).describe('Device hostname as in the inventory, e.g. R1'),
        commands: z.array(z.string()).min(1).describe('Configuration lines in order, without "configure terminal"'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    ({ device, commands }) => {
      const r = lab.config(device, commands);
      return r.ok ? { content: [{ type: 'text', text: r.output }] } : { isError: true, content: [{ type: 'text', text: r.error }] };
    },
  );

  return server;
}
