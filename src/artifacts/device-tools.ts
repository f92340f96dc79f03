import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Lab } from '../lab/lab';

/** What the RAW engine (and anything else) needs from a device-automation server. */
export interface DeviceTools {
  execCli(device: string, command: string): Promise<string>;
  configCli(device: string, commands: string[]): Promise<string>;
}

/** The device or the tool refused: unknown host, unreachable, invalid input, rejected config. */
export class DeviceToolError extends Error {
  override readonly name = 'DeviceToolError';
  constructor(
    readonly tool: 'exec_cli' | 'config_cli',
    message: string,
    /** False only when the call never reached the device tool server, so nothing can have been applied. */
    readonly reached = true,
  ) {
    super(message);
  }
}

/** Over the lab object, in process: fast and deterministic for tests and `raw:test`. */
export function createLabDeviceTools(lab: Lab): DeviceTools {
  return {
    execCli(device, command) {
      const r = lab.exec(device, command);
      return r.ok ? Promise.resolve(r.output) : Promise.reject(new DeviceToolError('exec_cli', r.error));
    },
    configCli(device, commands) {
      const r = lab.config(device, commands);
      return r.ok ? Promise.resolve(r.output) : Promise.reject(new DeviceToolError('config_cli', r.error));
    },
  };
}

export interface McpDeviceTools extends DeviceTools {
  close(): Promise<void>;
}

/**
 * Over any MCP server that offers `exec_cli` and `config_cli` (the lab, or a real
 * automation server), with the official client on Streamable HTTP. Connects on first use.
 * `token` is sent as `Authorization: Bearer`; it lives in this closure only, so it never
 * reaches a log line or the agents' runtime.
 */
export function createMcpDeviceTools(url: string, opts: { headers?: Record<string, string>; token?: string } = {}): McpDeviceTools {
  const headers = { ...opts.headers, ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}) };
  let connecting: Promise<Client> | undefined;
  const connect = () =>
    (connecting ??= (async () => {
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
      : `device tool server unreachable: ${(error as Error).message}`;

  const call = async (tool: 'exec_cli' | 'config_cli', args: Record<string, unknown>): Promise<string> => {
    let client: Client;
    try {
      client = await connect();
    } catch (error) {
      throw new DeviceToolError(tool, unreached(error), false);
    }
    const result = await client.callTool({ name: tool, arguments: args });
    const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
    const text = content
      .filter((c) => c.type === 'text')
      .map((c) => c.text ?? '')
      .join('\n');
    if (result.isError) throw new DeviceToolError(tool, text || `${tool} failed`);
    return text;
  };

  return {
    execCli: (device, command) => call('exec_cli', { device, command }),
    configCli: (device, commands) => call('config_cli', { device, commands }),
    async close() {
      const c = connecting;
      connecting = undefined;
      if (c) await (await c.catch(() => undefined))?.close();
    },
  };
}
