import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { DeviceService } from './device-service';
import { DeviceError } from './errors';

/**
 * The same two tools the relay's device guard forwards to and the simulated lab serves, on real
 * devices. Errors are tool errors (`isError`) whose text starts with the error kind in brackets, so
 * a person and a program both read it.
 */
export function createDeviceMcpServer(service: DeviceService): McpServer {
  const server = new McpServer(
    { name: 'fault-relay-ssh-devices', version: '1.0.0' },
    { instructions: 'Real routers over SSH. exec_cli runs one read-only show command; config_cli applies configuration lines, all or nothing.' },
  );
  const answer = async (work: () => Promise<string>) => {
    try {
      return { content: [{ type: 'text' as const, text: await work() }] };
    } catch (error) {
      const text = error instanceof DeviceError ? `[${error.kind}] ${error.message}` : `[internal] ${(error as Error).message}`;
      return { isError: true, content: [{ type: 'text' as const, text }] };
    }
  };
  const names = service.devices().map((d) => `${d.name} (${d.platform})`).join(', ');

  server.registerTool(
    'exec_cli',
    {
      title: 'Run a show command',
      description: `Runs one read-only show command (optionally with an output filter the platform has) on a device and returns its output. Devices: ${names}.`,
      inputSchema: {
        device: z.string().min(1).describe('Device name as in the inventory'),
        command: z.string().min(1).describe('One show command, e.g. "show ip bgp summary"'),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ device, command }) => answer(() => service.exec(device, command)),
  );

  server.registerTool(
    'config_cli',
    {
      title: 'Apply configuration lines',
      description:
        'Applies configuration lines in configuration mode, all or nothing: if a line is refused the device is put back as it was and the error names the line. Needs an operator approval first.',
      inputSchema: {
        device: z.string().min(1).describe('Device name as in the inventory'),
        commands: z.array(z.string()).min(1).describe('Configuration lines in order, without "configure terminal" or "end"'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    ({ device, commands }) => answer(() => service.config(device, commands)),
  );
  return server;
}
