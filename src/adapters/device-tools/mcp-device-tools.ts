import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConfigPreview } from '../../runbooks/config-preview';
import { ChangeStatus, DeviceToolError, type ApplyExpect, type DeviceToolName, type DeviceTools, type ProvisionalOpts } from '../../core/changes/device-contract';
import { deviceFailure } from '../../core/changes/device-failure';
import { DeviceToolFailure } from '../../core/changes/device-tool-schemas';
import { errorText } from '../../core/error-body';

export interface McpDeviceTools extends DeviceTools {
  close(): Promise<void>;
}

/**
 * The one client of the device-tool contract (device-tool-schemas.ts): over any MCP server that
 * registers the device tools (the device server, the simulated lab), with the official client on
 * Streamable HTTP. Connects on first use. A failure is read from its structured content
 * (`{error: DeviceFailure}`); a server that sends none is taken at its worst: `internal`, reached.
 * `token` is sent as `Authorization: Bearer`; it lives in this closure only, so it never
 * reaches a log line or the agents' runtime.
 */
export function createMcpDeviceTools(
  at: string | (() => { url: string; token?: string }),
  opts: { headers?: Record<string, string>; token?: string } = {},
): McpDeviceTools {
  let connecting: Promise<Client> | undefined;
  const connect = () =>
    (connecting ??= (async () => {
      // Read at each connect: a server started again has a new address and token (close() forgets the old client).
      const { url, token } = typeof at === 'string' ? { url: at, token: opts.token } : at();
      const headers = { ...opts.headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
      const client = new Client({ name: 'fault-relay-raw-engine', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        ...(Object.keys(headers).length ? { requestInit: { headers } } : {}),
      });
      try {
        await client.connect(transport);
      } catch (error) {
        connecting = undefined;
        throw error;
      }
      return client;
    })());

  // A refused credential is a configuration fault, not an outage: say which setting to check.
  const unreached = (error: unknown) =>
    (error as { code?: number }).code === 401
      ? 'the device tool server refused the relay\'s credential (DEVICE_MCP_TOKEN)'
      : `device tool server unreachable: ${errorText(error)}`;

  const call = async (tool: DeviceToolName, args: Record<string, unknown>): Promise<{ text: string; structured: unknown }> => {
    let client: Client;
    try {
      client = await connect();
    } catch (error) {
      throw new DeviceToolError(tool, unreached(error), deviceFailure('server_unreachable', false));
    }
    const result = await client.callTool({ name: tool, arguments: args });
    const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
    const text = content
      .filter((c) => c.type === 'text')
      .map((c) => c.text ?? '')
      .join('\n');
    if (result.isError) {
      const failure = DeviceToolFailure.safeParse(result.structuredContent);
      throw new DeviceToolError(tool, text || `${tool} failed`, failure.success ? failure.data.error : deviceFailure('internal', true));
    }
    return { text, structured: result.structuredContent };
  };
  /** A change's status as the server gave it; a server without the provisional tools cannot have kept the change provisional. */
  const status = async (tool: DeviceToolName, args: Record<string, unknown>) => {
    const r = await call(tool, args);
    const parsed = ChangeStatus.safeParse(r.structured);
    if (!parsed.success) throw new DeviceToolError(tool, `${tool}: the device tool server answered without a change status (${r.text.slice(0, 200)})`, deviceFailure('internal', true));
    return { output: r.text, change: parsed.data };
  };
  const expect = (o?: ApplyExpect) => (o?.expectConfigSha256 ? { expect_config_sha256: o.expectConfigSha256 } : {});
  const provisional = (device: string, commands: string[], s: number, o?: ProvisionalOpts) => status('config_cli', { device, commands, confirm_within_s: s, ...expect(o), ...(o?.changeId ? { change_id: o.changeId } : {}) });

  return {
    execCli: async (device, command) => (await call('exec_cli', { device, command })).text,
    configCli: async (device, commands, o) =>
      o?.confirmWithinS === undefined ? (await call('config_cli', { device, commands, ...expect(o) })).text : (await provisional(device, commands, o.confirmWithinS, o)).output,
    configProvisional: provisional,
    confirmChange: async (device, changeId) => (await status('confirm_change', { device, change_id: changeId })).change,
    rollbackChange: async (device, changeId, reason) => (await status('rollback_change', { device, change_id: changeId, reason })).change,
    changeStatus: async (device, changeId) => (await status('change_status', { device, change_id: changeId })).change,
    async previewConfig(device, commands) {
      const r = await call('preview_config', { device, commands });
      const parsed = ConfigPreview.safeParse(r.structured);
      if (!parsed.success) throw new DeviceToolError('preview_config', `preview_config: the device tool server answered without a preview (${r.text.slice(0, 200)})`, deviceFailure('internal', true));
      return parsed.data;
    },
    async close() {
      const c = connecting;
      connecting = undefined;
      if (c) await (await c.catch(() => undefined))?.close();
    },
  };
}
