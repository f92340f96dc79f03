import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SupervisedServerInfo, supervisedFiles } from '../../../src/adapters/devices/supervised';
import { startFakeDevice } from '../devices/fake-device';
// @ts-expect-error a plain .mjs build helper, shared with `npm start`
import { bundleElectron } from '../../../electron/bundle.mjs';

const run = promisify(execFile);

describe('bundled main process', () => {
  it('starts the relay in-process, serves checked IPC, and stops on Quit (under a fake Electron)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fault-relay-bundle-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    await bundleElectron({ root: process.cwd(), outDir: join(dir, 'dist-electron') });
    const env = {
      ...process.env,
      FAKE_APP_PATH: process.cwd(),
      FAKE_USER_DATA: join(dir, 'user-data'),
      AGENT_URL: 'http://127.0.0.1:1',
      AGENT_SERVER_PASSWORD: 'pw',
      INGEST_PORT: '0',
      LOG_LEVEL: 'silent',
    };
    const { stdout } = await run(process.execPath, [join(import.meta.dirname, 'fake-electron', 'run-bundle.cjs'), join(dir, 'dist-electron', 'main.cjs')], { env, timeout: 30_000 });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!);

    expect(out.record.windows).toEqual([expect.objectContaining({ contextIsolation: true, sandbox: true, nodeIntegration: false, preload: join(process.cwd(), 'dist-electron', 'preload.cjs') })]);
    expect(out.record.loaded).toEqual([join(process.cwd(), 'dist-renderer', 'index.html')]);
    expect(out.channels).toContain('fault-relay:decide');
    // The configured runtime is not there: the tray and the health panel both say so.
    expect(out.record.tooltips.at(-1)).toMatch(/^Fault Relay: Degraded: agent runtime.*ECONNREFUSED/);
    expect(out.health).toMatchObject({ status: 'degraded', checks: { agent_runtime: { ok: false } } });
    expect(out.groups).toEqual(expect.arrayContaining(['AD000002', 'AD000003']));
    expect(out.untrusted).toBe('listIncidents: refused, the caller is not the Fault Relay window');
    // The first Quit waits for the relay to stop, then quits for real.
    expect(out.record.quitRequests).toBe(2);
    expect(out.record.exited).toBe(true);
  });

  it('run with the device-server flag, is the detached device server instead of the tray: it answers on the ready pipe from a session of its own, and stops on SIGTERM', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fault-relay-bundle-devices-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const device = await startFakeDevice();
    onTestFinished(() => device.stop());
    const inventory = device.inventoryIn(dir).path;
    await bundleElectron({ root: process.cwd(), outDir: join(dir, 'dist-electron') });
    const stateDir = join(dir, 'state');
    const args = [join(import.meta.dirname, 'fake-electron', 'run-bundle.cjs'), join(dir, 'dist-electron', 'main.cjs'), '--fault-relay-device-server', '--supervised', '--inventory', inventory, '--state-dir', stateDir, '--ready-fd', '3'];
    const first = spawn(process.execPath, args, { env: { ...process.env, FAKE_APP_PATH: process.cwd(), FAKE_USER_DATA: join(dir, 'user-data'), LOG_LEVEL: 'silent' }, stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: first.stdio[3] as Readable }).once('line', resolve).once('close', () => reject(new Error('no ready line')));
    });
    (first.stdio[3] as Readable).destroy();
    const info = SupervisedServerInfo.parse(JSON.parse(line));
    const gone = () => !existsSync(`/proc/${info.pid}`) || /^\S+ \(.*\) Z/s.test(readFileSync(`/proc/${info.pid}/stat`, 'utf8'));
    onTestFinished(() => {
      if (!gone()) process.kill(info.pid, 'SIGKILL');
    });
    expect(info.inventory).toBe(inventory);
    expect(readFileSync(`/proc/${info.pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[3]).toBe(String(info.pid));
    expect(existsSync(supervisedFiles(stateDir).token)).toBe(true);
    expect(first.pid).not.toBe(info.pid);
    process.kill(info.pid, 'SIGTERM');
    // Polled: not the test's child, so its exit cannot be awaited; the test's timeout bounds it.
    while (!gone()) await new Promise((r) => setTimeout(r, 100));
    expect(Object.values(supervisedFiles(stateDir)).filter((f) => existsSync(f))).toEqual([]);
  });
});
