import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { repoRoot } from '../../helpers/opencode';
import { tempDir } from '../../helpers/temp-dir';
import { startFakeDevice, type FakeDevice } from './fake-device';

let device: FakeDevice;
beforeAll(async () => {
  device = await startFakeDevice();
});
afterAll(async () => device?.stop());

/** `npm run devices` as an operator starts it; resolves once it said where its token is. */
function startCli(args: string[], env: Record<string, string | undefined>) {
  const childEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/devices.ts', ...args], { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<{ mcpUrl: string }>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const url = /device tools: MCP (\S+)/.exec(out)?.[1];
      if (url && out.includes('bearer token:')) resolve({ mcpUrl: url });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return { child, ready, exited, output: () => out };
}

const initialize = (mcpUrl: string, token?: string) =>
  fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });

describe('npm run devices: the bearer token', () => {
  it('generated: written 0600 to the file it names, never printed, and removed when it stops', async () => {
    const dir = tempDir('devices-cli-');
    const tokenFile = join(dir, 'state', 'device-server.token');
    const cli = startCli(['--inventory', device.inventoryIn(dir).path, '--port', '0', '--token-file', tokenFile], { DEVICE_SERVER_TOKEN: undefined, LOG_LEVEL: 'silent' });
    const { mcpUrl } = await cli.ready;
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(cli.output()).toContain(`written to ${tokenFile} (0600)`);
    expect(cli.output()).not.toContain(token);
    expect((await initialize(mcpUrl)).status).toBe(401);
    expect((await initialize(mcpUrl, token)).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(existsSync(tokenFile)).toBe(false);
    expect(device.connections()).toBe(0);
  });

  it('from DEVICE_SERVER_TOKEN: no file, and the token is not printed', async () => {
    const dir = tempDir('devices-cli-env-');
    const tokenFile = join(dir, 'device-server.token');
    const token = 'operator-chosen-device-token-0123';
    const cli = startCli(['--inventory', device.inventoryIn(dir).path, '--port', '0', '--token-file', tokenFile], { DEVICE_SERVER_TOKEN: token, LOG_LEVEL: 'silent' });
    const { mcpUrl } = await cli.ready;
    expect(existsSync(tokenFile)).toBe(false);
    expect(cli.output()).toContain('bearer token: DEVICE_SERVER_TOKEN');
    expect(cli.output()).not.toContain(token);
    expect((await initialize(mcpUrl, 'operator-chosen-device-token-0124')).status).toBe(401);
    expect((await initialize(mcpUrl, token)).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('refuses a short DEVICE_SERVER_TOKEN without echoing it', async () => {
    const dir = tempDir('devices-cli-short-');
    const cli = startCli(['--inventory', device.inventoryIn(dir).path, '--port', '0'], { DEVICE_SERVER_TOKEN: 'tiny-secret' });
    await expect(cli.ready).rejects.toThrow(/exited 2/);
    expect(cli.output()).toMatch(/DEVICE_SERVER_TOKEN must be at least 16 characters/);
    expect(cli.output()).not.toContain('tiny-secret');
  });
});
