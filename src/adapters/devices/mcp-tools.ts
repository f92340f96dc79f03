import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CONFIRM_WITHIN_S, type ChangeStatus } from '../../core/changes/device-contract';
import type { DeviceService } from './device-service';
import { DeviceError } from './errors';
import { registerPreviewTool } from '../../runbooks/config-preview-tool';
import { SHA256_HEX } from '../../runbooks/config-fingerprint';

/**
 * The tools the relay's device guard forwards to and the simulated lab serves, on real devices:
 * exec_cli, config_cli (provisional with confirm_within_s) and the provisional-change tools. Errors are tool errors (`isError`) whose text starts with the error kind in brackets, so
 * a person and a program both read it.
 */
export function createDeviceMcpServer(service: DeviceService): McpServer {
  const server = new McpServer(
    { name: 'fault-relay-ssh-devices', version: '1.0.0' },
    { instructions: 'Real routers over SSH. exec_cli runs one read-only show command; config_cli applies configuration lines, all or nothing.' },
  );
  const failed = (error: unknown) => {
    const text = error instanceof DeviceError ? `[${error.kind}] ${error.message}` : `[internal] ${(error as Error).message}`;
    const detail = error instanceof DeviceError ? error.detail : undefined;
    return { isError: true, content: [{ type: 'text' as const, text }], ...(detail ? { structuredContent: detail } : {}) };
  };
  const answer = async (work: () => Promise<string>) => {
    try {
      return { content: [{ type: 'text' as const, text: await work() }] };
    } catch (error) {
      return failed(error);
    }
  };
  /** A change's status as structuredContent, with a line for a person. */
  const status = async (work: () => ChangeStatus | Promise<ChangeStatus>) => {
    try {
      const s = await work();
      const line = `change ${s.change_id} on ${s.device}: ${s.state}${s.reason ? ` (${s.reason})` : ''}${s.state === 'pending' ? ` until ${s.deadline}` : ''}${s.detail ? `: ${s.detail}` : ''}`;
      return { content: [{ type: 'text' as const, text: line }], structuredContent: s };
    } catch (error) {
      return failed(error);
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
        confirm_within_s: z.number().int().min(CONFIRM_WITHIN_S.min).max(CONFIRM_WITHIN_S.max).optional()
          .describe('Makes the change provisional: rolled back (and verified) unless confirm_change is called within this many seconds'),
        expect_config_sha256: z.string().regex(SHA256_HEX).optional()
          .describe("The fingerprint of the configuration the change was previewed on (preview_config's): nothing is sent when the device's differs"),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    async ({ device, commands, confirm_within_s, expect_config_sha256 }) => {
      if (confirm_within_s === undefined) return answer(() => service.config(device, commands, expect_config_sha256));
      try {
        const r = await service.changes.apply(device, commands, confirm_within_s, expect_config_sha256);
        return { content: [{ type: 'text' as const, text: r.output }], structuredContent: r.change };
      } catch (error) {
        return failed(error);
      }
    },
  );

  const change = { device: z.string().min(1).describe('Device name as in the inventory'), change_id: z.string().min(1).max(100).describe('The change_id config_cli returned') };
  server.registerTool(
    'confirm_change',
    {
      title: 'Confirm a provisional change',
      description: 'Makes a pending provisional change final. Refused, naming its state, when it is no longer pending.',
      inputSchema: change,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ device, change_id }) => status(() => service.changes.confirm(device, change_id)),
  );
  server.registerTool(
    'rollback_change',
    {
      title: 'Roll back a provisional change',
      description: 'Puts the configuration from before a pending change back and verifies it by reading it back. Idempotent for a change already rolled back.',
      inputSchema: { ...change, reason: z.string().min(1).max(500).describe('Why, e.g. "post-check failed"') },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ device, change_id, reason }) => status(() => service.changes.rollback(device, change_id, reason)),
  );
  server.registerTool(
    'change_status',
    {
      title: 'Status of a provisional change',
      description: 'pending, confirmed, rolled_back or rollback_failed, with its deadline, why it was rolled back and the read-back result.',
      inputSchema: change,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ device, change_id }) => status(() => service.changes.status(device, change_id)),
  );
  registerPreviewTool(server, (device, commands) => service.preview(device, commands), failed);
  return server;
}
