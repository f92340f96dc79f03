import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DeviceToolError, type ChangeStatus, type DeviceToolName, type DeviceTools } from '../../core/changes/device-contract';
import { deviceFailure } from '../../core/changes/device-failure';
import { previewWithoutSecrets } from '../../core/changes/preview-secrets';
import { DEVICE_TOOL_INPUTS, type DeviceToolFailure } from '../../core/changes/device-tool-schemas';
import { previewLines } from '../../runbooks/config-preview';
import { errorText } from '../../core/error-body';

export interface DeviceToolsAbout {
  /** The devices, as the descriptions name them (e.g. "R1 (frr), R2 (frr)"). */
  devices: string;
  /** Real devices (open world) or a simulation. */
  openWorld: boolean;
}

/**
 * A failed call as it travels: the kind first in the text, for a person; `{error: DeviceFailure}` as
 * structured content, for a program (the client reads that, never the text). Anything that is not a
 * DeviceToolError is the server's own fault, and lines may have gone out before it: `internal`, reached.
 */
export function failedCall(error: unknown): CallToolResult {
  const failure = error instanceof DeviceToolError ? error.failure : deviceFailure('internal', true);
  const structured: DeviceToolFailure = { error: failure };
  return { isError: true, content: [{ type: 'text', text: `[${failure.kind}] ${errorText(error)}` }], structuredContent: structured };
}

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const statusLine = (s: ChangeStatus) =>
  `change ${s.change_id} on ${s.device}: ${s.state}${s.reason ? ` (${s.reason})` : ''}${s.state === 'pending' ? ` until ${s.deadline}` : ''}${s.detail ? `: ${s.detail}` : ''}`;
const status = (s: ChangeStatus): CallToolResult => ({ content: [{ type: 'text', text: statusLine(s) }], structuredContent: s });

async function answer(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return failedCall(error);
  }
}

/**
 * The device tools on an MCP server, over any implementation of the DeviceTools port: the device
 * server (real devices through their drivers) and the simulated lab register exactly these, with the
 * contract's schemas (device-tool-schemas.ts), so the relay's client reads both the same way.
 */
export function registerDeviceTools(server: McpServer, tools: DeviceTools, about: DeviceToolsAbout): void {
  const hints = (readOnly: boolean, idempotent: boolean, destructive: boolean) => ({ readOnlyHint: readOnly, destructiveHint: destructive, idempotentHint: idempotent, openWorldHint: about.openWorld });
  const tool = <N extends DeviceToolName>(name: N, title: string, description: string, annotations: ReturnType<typeof hints>) => ({ title, description, inputSchema: DEVICE_TOOL_INPUTS[name], annotations });

  server.registerTool(
    'exec_cli',
    tool('exec_cli', 'Run a show command', `Runs one read-only show command (optionally with an output filter the platform has) on a device and returns its output. Devices: ${about.devices}.`, hints(true, true, false)),
    ({ device, command }) => answer(async () => text(await tools.execCli(device, command))),
  );
  server.registerTool(
    'config_cli',
    tool('config_cli', 'Apply configuration lines', 'Applies configuration lines in configuration mode, all or nothing: if a line is refused the device is put back as it was and the error names the line. Needs an operator approval first.', hints(false, false, true)),
    ({ device, commands, confirm_within_s, expect_config_sha256, change_id }) =>
      answer(async () => {
        const expect = expect_config_sha256 ? { expectConfigSha256: expect_config_sha256 } : {};
        if (confirm_within_s === undefined) return text(await tools.configCli(device, commands, expect));
        const r = await tools.configProvisional(device, commands, confirm_within_s, { ...expect, ...(change_id ? { changeId: change_id } : {}) });
        return { content: [{ type: 'text', text: r.output }], structuredContent: r.change };
      }),
  );
  server.registerTool(
    'confirm_change',
    tool('confirm_change', 'Confirm a provisional change', 'Makes a pending provisional change final. Refused, naming its state, when it is no longer pending.', hints(false, false, false)),
    ({ device, change_id }) => answer(async () => status(await tools.confirmChange(device, change_id))),
  );
  server.registerTool(
    'rollback_change',
    tool('rollback_change', 'Roll back a provisional change', 'Puts the configuration from before a pending change back and verifies it by reading it back. Idempotent for a change already rolled back.', hints(false, true, true)),
    ({ device, change_id, reason }) => answer(async () => status(await tools.rollbackChange(device, change_id, reason))),
  );
  server.registerTool(
    'change_status',
    tool('change_status', 'Status of a provisional change', 'pending, confirmed, rolled_back or rollback_failed, with its deadline, why it was rolled back and the read-back result.', hints(true, true, false)),
    ({ device, change_id }) => answer(async () => status(await tools.changeStatus(device, change_id))),
  );
  server.registerTool(
    'preview_config',
    tool('preview_config', 'Preview configuration lines (dry run)', 'What the lines would change on the live device, without changing it: whether the device (or its grammar) accepts them, and the running-configuration lines added and removed.', hints(true, true, false)),
    ({ device, commands }) =>
      answer(async () => {
        const p = previewWithoutSecrets(await tools.previewConfig(device, commands));
        return { content: [{ type: 'text', text: previewLines(p).join('\n') }], structuredContent: p };
      }),
  );
}
