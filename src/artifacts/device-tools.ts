import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import type { Lab } from '../lab/lab';
import { ConfigPreview } from './config-preview';
import { labPreview } from '../lab/preview';

/**
 * A provisional change's life: it stays `pending` until confirmed, and the device tool server puts
 * the configuration from before back (and reads it back) when it is not confirmed in time, when the
 * relay asks, or when the server stops or restarts with it still pending.
 */
export const ChangeState = z.enum(['pending', 'confirmed', 'rolled_back', 'rollback_failed']);
export type ChangeState = z.infer<typeof ChangeState>;

export const ChangeStatus = z.object({
  change_id: z.string(),
  device: z.string(),
  state: ChangeState,
  /** ISO time the change rolls back unless confirmed. */
  deadline: z.string(),
  /** Why it was rolled back: 'deadline' | 'requested' | 'server_restart' | 'session_lost' | 'server_stop', or the relay's own text for a requested one. */
  reason: z.string().optional(),
  /** The read-back result, e.g. what still differs when rollback_failed. */
  detail: z.string().optional(),
  /** On the apply's answer: the configuration fingerprint the server checked before the first line (as the caller expected). */
  before_sha256: z.string().optional(),
});
export type ChangeStatus = z.infer<typeof ChangeStatus>;

/** The bounds of `confirm_within_s`: long enough for a post-check, short enough that a lost relay cannot leave a change hanging. */
export const CONFIRM_WITHIN_S = { min: 5, max: 3600 } as const;

/**
 * The promise the device server keeps for a change nobody confirms: its rollback starts at the deadline
 * and has put the configuration back and read it back (the outcome's `at`) within this many seconds
 * after it. A rollback that ends later says so in its outcome and the server's log.
 */
export const ROLLBACK_GRACE_S = 30;

/** What the RAW engine (and anything else) needs from a device-automation server. */
export interface DeviceTools {
  execCli(device: string, command: string): Promise<string>;
  /** With `confirmWithinS` the change is provisional (see configProvisional); the result text is the same either way. */
  configCli(device: string, commands: string[], opts?: { confirmWithinS?: number } & ApplyExpect): Promise<string>;
  /** Like configCli but provisional: resolves with the output and the pending change. */
  configProvisional(device: string, commands: string[], confirmWithinS: number, opts?: ApplyExpect): Promise<{ output: string; change: ChangeStatus }>;
  confirmChange(device: string, changeId: string): Promise<ChangeStatus>;
  rollbackChange(device: string, changeId: string, reason: string): Promise<ChangeStatus>;
  changeStatus(device: string, changeId: string): Promise<ChangeStatus>;
  /** What the lines would change on the live device (config-preview.ts); read-only, never changes the device. */
  previewConfig(device: string, commands: string[]): Promise<ConfigPreview>;
}

/**
 * The configuration the change was approved on (config-fingerprint.ts): the server reads the device's
 * configuration before the first line and sends nothing when its fingerprint differs.
 */
export interface ApplyExpect {
  expectConfigSha256?: string;
}

export type DeviceToolName = 'exec_cli' | 'config_cli' | 'confirm_change' | 'rollback_change' | 'change_status' | 'preview_config';

/** The device or the tool refused: unknown host, unreachable, invalid input, rejected config. */
export class DeviceToolError extends Error {
  override readonly name = 'DeviceToolError';
  constructor(
    readonly tool: DeviceToolName,
    message: string,
    /** False only when the call never reached the device tool server, so nothing can have been applied. */
    readonly reached = true,
    /** The server's structured detail of a refusal (a fingerprint mismatch), unchecked: parse before use. */
    readonly detail?: unknown,
  ) {
    super(message);
  }
}

/** Over the lab object, in process: fast and deterministic for tests and `raw:test`. */
export function createLabDeviceTools(lab: Lab): DeviceTools {
  const provisional = (device: string, commands: string[], confirmWithinS: number, opts?: ApplyExpect) => {
    const r = lab.configProvisional(device, commands, confirmWithinS, opts?.expectConfigSha256);
    return r.ok ? Promise.resolve({ output: r.output, change: r.change }) : Promise.reject(new DeviceToolError('config_cli', r.error, true, r.detail));
  };
  return {
    execCli(device, command) {
      const r = lab.exec(device, command);
      return r.ok ? Promise.resolve(r.output) : Promise.reject(new DeviceToolError('exec_cli', r.error));
    },
    configCli(device, commands, opts) {
      if (opts?.confirmWithinS !== undefined) return provisional(device, commands, opts.confirmWithinS, opts).then((r) => r.output);
      const r = lab.config(device, commands);
      return r.ok ? Promise.resolve(r.output) : Promise.reject(new DeviceToolError('config_cli', r.error));
    },
    configProvisional: provisional,
    confirmChange: (device, changeId) => settled('confirm_change', lab.confirmChange(device, changeId)),
    rollbackChange: (device, changeId, reason) => settled('rollback_change', lab.rollbackChange(device, changeId, reason)),
    changeStatus: (device, changeId) => settled('change_status', lab.changeStatus(device, changeId)),
    previewConfig: (device, commands) => {
      const r = labPreview(lab, device, commands);
      return r.ok ? Promise.resolve(r.preview) : Promise.reject(new DeviceToolError('preview_config', r.error));
    },
  };
}

const settled = (tool: DeviceToolName, r: { ok: true; change: ChangeStatus } | { ok: false; error: string }): Promise<ChangeStatus> =>
  r.ok ? Promise.resolve(r.change) : Promise.reject(new DeviceToolError(tool, r.error));

export interface McpDeviceTools extends DeviceTools {
  close(): Promise<void>;
}

/**
 * Over any MCP server that offers `exec_cli` and `config_cli` (the lab, or a real
 * automation server), with the official client on Streamable HTTP. Connects on first use.
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
      : `device tool server unreachable: ${(error as Error).message}`;

  const call = async (tool: DeviceToolName, args: Record<string, unknown>): Promise<{ text: string; structured: unknown }> => {
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
    if (result.isError) throw new DeviceToolError(tool, text || `${tool} failed`, true, result.structuredContent);
    return { text, structured: result.structuredContent };
  };
  /** A change's status as the server gave it; a server without the provisional tools cannot have kept the change provisional. */
  const status = async (tool: DeviceToolName, args: Record<string, unknown>) => {
    const r = await call(tool, args);
    const parsed = ChangeStatus.safeParse(r.structured);
    if (!parsed.success) throw new DeviceToolError(tool, `${tool}: the device tool server answered without a change status (${r.text.slice(0, 200)})`);
    return { output: r.text, change: parsed.data };
  };
  const expect = (o?: ApplyExpect) => (o?.expectConfigSha256 ? { expect_config_sha256: o.expectConfigSha256 } : {});
  const provisional = (device: string, commands: string[], s: number, o?: ApplyExpect) => status('config_cli', { device, commands, confirm_within_s: s, ...expect(o) });

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
      if (!parsed.success) throw new DeviceToolError('preview_config', `preview_config: the device tool server answered without a preview (${r.text.slice(0, 200)})`);
      return parsed.data;
    },
    async close() {
      const c = connecting;
      connecting = undefined;
      if (c) await (await c.catch(() => undefined))?.close();
    },
  };
}

/**
 * The provisional-change half of DeviceTools for a stand-in that only runs commands (tests, the FRR
 * RAW runner): every call is refused, so nothing can mistake it for a change kept provisional.
 */
export const WITHOUT_PROVISIONAL: Omit<DeviceTools, 'execCli' | 'configCli'> = {
  configProvisional: () => Promise.reject(new DeviceToolError('config_cli', 'this device tool stand-in keeps no provisional changes', false)),
  confirmChange: () => Promise.reject(new DeviceToolError('confirm_change', 'this device tool stand-in keeps no provisional changes', false)),
  rollbackChange: () => Promise.reject(new DeviceToolError('rollback_change', 'this device tool stand-in keeps no provisional changes', false)),
  changeStatus: () => Promise.reject(new DeviceToolError('change_status', 'this device tool stand-in keeps no provisional changes', false)),
  // A stand-in has no configuration to diff: it accepts and predicts nothing.
  previewConfig: (device) => Promise.resolve({ device, accepted: true, method: 'predicted', added: [], removed: [], problems: [] }),
};
