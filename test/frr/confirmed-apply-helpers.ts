import { spawn } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { onTestFinished } from 'vitest';
import { ChangeStatus } from '../../src/core/changes/device-contract';
import { repoRoot } from '../helpers/opencode';

/** The change every confirmed-apply test makes on R1: its session to R2 goes administratively down. */
export const shutdownR2 = ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'];

/** One tool call with its text and its structuredContent (the change status). */
export async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown };
  return { isError: Boolean(r.isError), text: r.content.map((c) => c.text ?? '').join('\n'), structured: r.structuredContent };
}

/**
 * Asks the server for the change's status until it is no longer pending. There is no event to
 * subscribe to over MCP, so this polls as the relay would; the test's own timeout bounds it.
 */
export async function untilSettled(client: Client, device: string, changeId: string): Promise<ChangeStatus> {
  for (;;) {
    const r = await callTool(client, 'change_status', { device, change_id: changeId });
    if (r.isError) throw new Error(r.text);
    const status = ChangeStatus.parse(r.structured);
    if (status.state !== 'pending') return status;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface DevicesProcess {
  mcpUrl: string;
  output: () => string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** `npm run devices` as a user starts it, in its own process so the test can SIGKILL it; ready once it prints its MCP URL. */
export async function spawnDevices(args: string[], token: string): Promise<DevicesProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/devices.ts', '--port', '0', ...args], {
    cwd: repoRoot,
    env: { ...process.env, DEVICE_SERVER_TOKEN: token, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const mcpUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      printed += c.toString();
      const m = /device tools: MCP (\S+)/.exec(printed);
      if (m) resolve(m[1]!);
    });
    child.stderr.on('data', (c: Buffer) => (printed += c.toString()));
    void exited.then(() => reject(new Error(`npm run devices exited early:\n${printed}`)));
  });
  return {
    mcpUrl,
    output: () => printed,
    async kill(signal) {
      child.kill(signal);
      await exited;
    },
  };
}
