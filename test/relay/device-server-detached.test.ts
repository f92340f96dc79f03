import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { SupervisedServerInfo, supervisedFiles } from '../../src/adapters/devices/supervised';
import { captureLogger } from '../helpers/capture-logger';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { FAKE_DEVICE_PASSWORD_ENV, startFakeDevice, type FakeDevice } from '../unit/devices/fake-device';

let device: FakeDevice;
beforeAll(async () => {
  device = await startFakeDevice();
});
afterAll(async () => device?.stop());

const alive = (pid: number) => {
  try {
    return !/^\S+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
/** Polled: the server is not the test's child, so its exit cannot be awaited; the test's timeout bounds it. */
const untilGone = async (pid: number) => {
  while (alive(pid)) await new Promise((r) => setTimeout(r, 100));
};

/** The supervised server named in the state folder, killed at the end if a failed test left it (checked by its command line). */
function runningServer(stateDir: string) {
  const files = supervisedFiles(stateDir);
  const info = SupervisedServerInfo.parse(JSON.parse(readFileSync(files.info, 'utf8')));
  onTestFinished(() => {
    try {
      if (readFileSync(`/proc/${info.pid}/cmdline`, 'utf8').includes('--supervised')) process.kill(info.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  return { ...info, token: readFileSync(files.token, 'utf8').trim() };
}

describe('the detached device server a relay starts from DEVICE_INVENTORY (the default)', () => {
  it('runs in a session of its own without the relay\'s secrets, is shared by a second relay on the same data folder, and exits when the last one lets go', { timeout: 120_000 }, async () => {
    const dir = tempDir('relay-detached-devices-');
    const env = { DEVICE_INVENTORY: device.inventoryIn(dir).path, RELAY_DATA_DIR: join(dir, 'data'), RELAY_LOG_DIR: join(dir, 'logs'), RELAY_TOOLS_TOKEN: 'tools-token-detached-test' };
    const stateDir = join(dir, 'data', 'device-changes');
    const log = captureLogger();
    const first = await relayForTest({ agent: createStubRuntime(), logger: log.logger, env });
    onTestFinished(() => first.close());
    const server = runningServer(stateDir);
    expect(alive(server.pid)).toBe(true);

    // Its own session and process group, and not the relay's child: a kill of the relay's group or of
    // its process tree does not reach it.
    const stat = readFileSync(`/proc/${server.pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    expect(Number(stat[1])).not.toBe(process.pid); // parent
    expect(Number(stat[2])).toBe(server.pid); // pgrp
    expect(Number(stat[3])).toBe(server.pid); // session
    // No secret on its command line; of the relay's environment only what the devices need (their credential variable).
    const cmdline = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8');
    const environ = readFileSync(`/proc/${server.pid}/environ`, 'utf8');
    for (const secret of [server.token, 'not-a-real-password', 'tools-token-detached-test']) expect(cmdline).not.toContain(secret);
    expect(environ).toContain(`${FAKE_DEVICE_PASSWORD_ENV}=not-a-real-password`);
    for (const secret of ['tools-token-detached-test', 'AGENT_SERVER_PASSWORD', server.token]) expect(environ).not.toContain(secret);

    const deep = await first.app.inject({ url: '/health/deep' });
    expect(deep.json().checks.device_mcp).toMatchObject({ ok: true });
    expect(log.text()).toContain('device tool server started from DEVICE_INVENTORY as its own process');
    for (const leak of [server.token, server.url, `:${new URL(server.url).port}`]) {
      expect(log.text()).not.toContain(leak);
      expect(deep.body).not.toContain(leak);
    }

    const second = await relayForTest({ agent: createStubRuntime(), logger: log.logger, env });
    onTestFinished(() => second.close());
    expect(log.text()).toContain('already running (it outlived the last relay): attached to it');
    expect(runningServer(stateDir).pid).toBe(server.pid);

    await first.close();
    expect(alive(server.pid)).toBe(true);
    await second.close();
    await untilGone(server.pid);
    expect(Object.values(supervisedFiles(stateDir)).filter((f) => existsSync(f))).toEqual([]);
    const serverLog = readFileSync(join(dir, 'logs', 'device-server.log'), 'utf8');
    expect(serverLog).toContain('supervised device server stopping: no relay attached and no change pending');
    for (const secret of [server.token, 'not-a-real-password']) expect(serverLog).not.toContain(secret);
  });

  it('is replaced, not shared, by a relay started on another inventory', { timeout: 120_000 }, async () => {
    const dir = tempDir('relay-detached-other-');
    const base = { RELAY_DATA_DIR: join(dir, 'data'), RELAY_LOG_DIR: join(dir, 'logs') };
    const stateDir = join(dir, 'data', 'device-changes');
    const first = await relayForTest({ agent: createStubRuntime(), env: { ...base, DEVICE_INVENTORY: device.inventoryIn(tempDir('relay-detached-a-')).path } });
    onTestFinished(() => first.close());
    const old = runningServer(stateDir);
    const second = await relayForTest({ agent: createStubRuntime(), env: { ...base, DEVICE_INVENTORY: device.inventoryIn(tempDir('relay-detached-b-')).path } });
    onTestFinished(() => second.close());
    const replacement = runningServer(stateDir);
    expect(replacement.pid).not.toBe(old.pid);
    await untilGone(old.pid);
    expect(replacement.inventory).toContain('relay-detached-b-');
    await first.close();
    await second.close();
    await untilGone(replacement.pid);
  });
});
