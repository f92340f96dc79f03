import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DeviceToolError } from '../../src/core/changes/device-contract';
import { createMcpDeviceTools } from '../../src/adapters/device-tools/mcp-device-tools';
import { repoRoot } from '../helpers/opencode';
import { NO_FRR } from './frr-available';

const run = promisify(execFile);

/** `npm run lab -- --frr` as a user starts it, in its own folder; removed (this lab only) however the test ends. */
async function startLabCli(): Promise<{ out: string; printed: () => string; stop: () => Promise<number | null> }> {
  const dir = mkdtempSync(join(tmpdir(), 'fault-relay-frr-token-'));
  const out = join(dir, 'frr.json');
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/lab.ts', '--frr', '--out', out, '--port', '0'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  let code: number | null | undefined;
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r((code = c))));
  const stop = async () => {
    if (code === undefined) child.kill('SIGINT');
    return exited;
  };
  onTestFinished(async () => {
    await stop();
    // A lab whose process died without its Ctrl-C cleanup: removed from its own state file, never by --all.
    await run(process.execPath, ['--import', 'tsx', 'scripts/lab.ts', '--frr', '--down', '--out', out], { cwd: repoRoot });
    // Only after the lab is down: its state file is in this folder.
    rmSync(dir, { recursive: true, force: true });
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      printed += c.toString();
      if (printed.includes('Ctrl-C')) resolve();
    });
    child.stderr.on('data', (c: Buffer) => (printed += c.toString()));
    void exited.then(() => reject(new Error(`lab exited early:\n${printed}`)));
  });
  return { out, printed: () => printed, stop };
}

describe.skipIf(NO_FRR)('npm run lab -- --frr and a relay started on its own', () => {
  it('writes the device server\'s token to a 0600 file in the lab\'s folder, prints how to use it but never the token, and removes it on Ctrl-C', async () => {
    const lab = await startLabCli();
    const summary = JSON.parse(readFileSync(lab.out, 'utf8')) as { device_mcp_url: string; device_mcp_token_file: string };
    const file = summary.device_mcp_token_file;
    expect(file).toBe(join(lab.out, '..', 'frr', 'device-server.token'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = readFileSync(file, 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(16);
    expect(lab.printed()).not.toContain(token);

    // The printed line, run by a shell as the user would paste it, gives the relay exactly these two settings.
    const line = /start a relay on them with: (.*) npm run relay$/m.exec(lab.printed())?.[1];
    expect(line).toBe(`DEVICE_MCP_URL=${summary.device_mcp_url} DEVICE_MCP_TOKEN="$(cat '${file}')"`);
    const { stdout } = await run('/bin/sh', ['-c', `${line} /usr/bin/env`]);
    expect(stdout).toContain(`DEVICE_MCP_URL=${summary.device_mcp_url}\n`);
    expect(stdout.includes(`DEVICE_MCP_TOKEN=${token}\n`)).toBe(true);

    // With the token the relay's own client reaches the routers; without it, it is told which setting to check.
    const withToken = createMcpDeviceTools(summary.device_mcp_url, { token });
    const without = createMcpDeviceTools(summary.device_mcp_url);
    try {
      expect(await withToken.execCli('r1', 'show version')).toMatch(/FRRouting 8\.\d+\.\d+ \(R1\)/);
      const refused = await without.execCli('R1', 'show version').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DeviceToolError);
      expect(refused).toMatchObject({ reached: false, message: expect.stringContaining('DEVICE_MCP_TOKEN') });
    } finally {
      await withToken.close();
      await without.close();
    }

    expect(await lab.stop()).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});
