import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CONFIRM_WITHIN_S } from '../../src/core/changes/device-contract';
import { SHA256_HEX } from '../../src/runbooks/config-fingerprint';
import type { ChangeResult } from './changes';
import type { Lab } from './lab';
import { registerPreviewTool } from '../../src/runbooks/config-preview-tool';
import { labPreview } from './preview';

const changeAnswer = (r: ChangeResult) =>
  r.ok
    ? { content: [{ type: 'text' as const, text: `change ${r.change.change_id} on ${r.change.device}: ${r.change.state}${r.change.reason ? ` (${r.change.reason})` : ''}` }], structuredContent: r.change }
    : { isError: true, content: [{ type: 'text' as const, text: r.error }] };

/**
 * The lab's MCP surface: the device tools the agents and the relay's device-tool guard
 * know (exec_cli, config_cli) and the provisional-change tools the relay uses. Errors come back as tool errors (`isError: true`) carrying
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
        confirm_within_s: z.number().int().min(CONFIRM_WITHIN_S.min).max(CONFIRM_WITHIN_S.max).optional()
          .describe('Makes the change provisional: rolled back unless confirm_change is called within this many seconds'),
        expect_config_sha256: z.string().regex(SHA256_HEX).optional()
          .describe("The fingerprint of the configuration the change was previewed on: nothing is sent when the device's differs"),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    ({ device, commands, confirm_within_s, expect_config_sha256 }) => {
      if (confirm_within_s !== undefined) {
        const p = lab.configProvisional(device, commands, confirm_within_s, expect_config_sha256);
        if (p.ok) return { content: [{ type: 'text', text: p.output }], structuredContent: p.change };
        return { isError: true, content: [{ type: 'text', text: p.error }], ...(p.detail ? { structuredContent: p.detail } : {}) };
      }
      const r = lab.config(device, commands);
      return r.ok ? { content: [{ type: 'text', text: r.output }] } : { isError: true, content: [{ type: 'text', text: r.error }] };
    },
  );

  const change = { device: z.string().min(1).describe('Device hostname as in the inventory'), change_id: z.string().min(1).describe('The change_id config_cli returned') };
  server.registerTool(
    'confirm_change',
    { title: 'Confirm a provisional change', description: 'Makes a pending provisional change final. Refused when it is no longer pending.', inputSchema: change, annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } },
    ({ device, change_id }) => changeAnswer(lab.confirmChange(device, change_id)),
  );
  server.registerTool(
    'rollback_change',
    {
      title: 'Roll back a provisional change',
      description: 'Puts the configuration from before a pending change back and verifies it. Idempotent for a change already rolled back.',
      inputSchema: { ...change, reason: z.string().min(1).max(500).describe('Why, e.g. "post-check failed"') },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ device, change_id, reason }) => changeAnswer(lab.rollbackChange(device, change_id, reason)),
  );
  server.registerTool(
    'change_status',
    { title: 'Status of a provisional change', description: 'pending, confirmed, rolled_back or rollback_failed, with the deadline and why.', inputSchema: change, annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } },
    ({ device, change_id }) => changeAnswer(lab.changeStatus(device, change_id)),
  );
  registerPreviewTool(
    server,
    (device, commands) => {
      const r = labPreview(lab, device, commands);
      if (!r.ok) throw new Error(r.error);
      return r.preview;
    },
    (error) => ({ isError: true, content: [{ type: 'text', text: (error as Error).message }] }),
  );

  return server;
}
