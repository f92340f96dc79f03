import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import type { RunningDeviceServer } from '../../src/adapters/devices/server';
import { RUNTIME_OMIT_ENV, startHeadlessRelay } from '../../src/relay/start-headless';
import { captureLogger } from '../helpers/capture-logger';
import { connectMcp } from '../helpers/mcp-client';
import { isolatedOpencodeEnv, repoRoot } from '../helpers/opencode';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { startFakeDevice, type FakeDevice } from '../unit/devices/fake-device';

// The relay starts its device server where the test cannot see it (that is the point); the test
// keeps a handle on each one only to know which port and token must appear nowhere.
const started = vi.hoisted(() => [] as RunningDeviceServer[]);
vi.mock('../../src/adapters/devices/server', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/adapters/devices/server')>();
  return {
    ...real,
    startDeviceServer: async (...args: Parameters<typeof real.startDeviceServer>) => {
      const server = await real.startDeviceServer(...args);
      started.push(server);
      return server;
    },
  };
});

let device: FakeDevice;
beforeAll(async () => {
  device = await startFakeDevice();
});
afterAll(async () => device?.stop());

const DEVICE_ENV = ['DEVICE_MCP_URL', 'DEVICE_MCP_TOKEN', 'DEVICE_INVENTORY', 'DEVICE_SERVER_TOKEN'];

/** Every way the relay-started device server could be named: its URL, host:port, token. */
function leaksOf(server: RunningDeviceServer): string[] {
  const port = new URL(server.url).port;
  return [server.mcpUrl, server.url, `127.0.0.1:${port}`, `localhost:${port}`, `"port":${port}`, server.token];
}

/** A raw call to the device server, the way any local process could try it. */
const callDirectly = (server: RunningDeviceServer, headers: Record<string, string>) =>
  fetch(server.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'config_cli', arguments: { device: 'R1', commands: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'] } } }),
  });

describe('the device server the relay starts from DEVICE_INVENTORY', () => {
  it('answers the guard only; its URL and token are in no log line and not in /health/deep', async () => {
    const log = captureLogger();
    const before = started.length;
    const relay = await relayForTest({ agent: createStubRuntime(), logger: log.logger, env: { DEVICE_INVENTORY: device.inventoryIn(tempDir('relay-devices-')).path, RELAY_TOOLS_TOKEN: 'tools-token-for-this-test', DEVICE_SERVER_MODE: 'in-process' } });
    onTestFinished(() => relay.close());
    expect(started.length).toBe(before + 1);
    const server = started.at(-1)!;

    // Without the relay's credential: refused, and the router never hears of it.
    const bare = await callDirectly(server, {});
    expect(bare.status).toBe(401);
    expect(await bare.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    expect((await callDirectly(server, { authorization: 'Bearer tools-token-for-this-test' })).status).toBe(401);
    expect(device.connections()).toBe(0);

    // Through the guard it works: the relay's own client holds the token.
    const url = await relay.listen({ port: 0, host: '127.0.0.1' });
    const guard = await connectMcp(`${url}/device-mcp`, 'tools-token-for-this-test');
    onTestFinished(() => guard.close());
    const alert = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' })) });
    const id = alert.json().incident_id as string;
    const r = await guard.call('exec_cli', { incident_id: id, device: 'R1', command: 'show ip bgp neighbors 10.0.0.2' });
    // The fake router hangs up: the call fails at SSH, past the device server's door.
    expect(r.isError).toBe(true);
    expect(device.connections()).toBeGreaterThan(0);
    expect(relay.incidents.timeline(id).map((e) => e.type)).toContain('device.error');
    expect(r.text).not.toContain('DEVICE_MCP_TOKEN');

    const deep = await relay.app.inject({ url: '/health/deep' });
    const body = deep.json<{ checks: { device_mcp: Record<string, unknown> } }>();
    expect(body.checks.device_mcp).toMatchObject({ ok: true, latency_ms: expect.any(Number) });
    expect(body.checks.device_mcp).not.toHaveProperty('url');

    const timeline = JSON.stringify(relay.incidents.timeline(id));
    expect(log.text()).toContain('device tool server started from DEVICE_INVENTORY');
    for (const leak of leaksOf(server)) {
      expect(deep.body).not.toContain(leak);
      expect(log.text()).not.toContain(leak);
      expect(timeline).not.toContain(leak);
    }
  });
});

describe('the embedded runtime of a relay with DEVICE_INVENTORY', () => {
  it('inherits none of the device settings, and the relay\'s start-up lines name no device server', { timeout: 120_000 }, async () => {
    expect(RUNTIME_OMIT_ENV).toEqual(expect.arrayContaining(DEVICE_ENV));
    const dir = tempDir('relay-runtime-env-');
    const inventory = device.inventoryIn(dir).path;
    // As if the operator had exported them in the shell the relay runs in: the runtime inherits that shell.
    const saved = Object.fromEntries(DEVICE_ENV.map((k) => [k, process.env[k]]));
    Object.assign(process.env, { DEVICE_MCP_URL: 'http://127.0.0.1:9/mcp', DEVICE_MCP_TOKEN: 'exported-device-mcp-token-abc', DEVICE_INVENTORY: inventory, DEVICE_SERVER_TOKEN: 'exported-device-server-token-abc' });
    onTestFinished(() => {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    });
    const log = captureLogger();
    const before = started.length;
    const running = await startHeadlessRelay({
      env: { RELAY_HOST: '127.0.0.1', RELAY_PROJECT_DIR: repoRoot, RELAY_DATA_DIR: join(dir, 'data'), RELAY_LOG_DIR: join(dir, 'logs'), DEVICE_INVENTORY: inventory, DEVICE_SERVER_MODE: 'in-process' },
      logger: log.logger,
      port: 0,
      runtimeEnv: isolatedOpencodeEnv(repoRoot),
    });
    onTestFinished(() => running.stop());
    expect(started.length).toBe(before + 1);
    const server = started.at(-1)!;

    const pid = running.embedded?.pid();
    expect(pid).toBeGreaterThan(0);
    // What the opencode process really holds, not what the relay meant to give it.
    const env = Object.fromEntries(
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    expect(env.RELAY_DEVICE_TOOLS_URL).toBe(`${running.url}/device-mcp`);
    for (const k of DEVICE_ENV) expect(env).not.toHaveProperty(k);
    const envText = JSON.stringify(env);
    for (const leak of [...leaksOf(server), 'exported-device-mcp-token-abc', 'exported-device-server-token-abc', inventory]) expect(envText).not.toContain(leak);

    const deep = await fetch(`${running.url}/health/deep`);
    const deepText = await deep.text();
    expect(JSON.parse(deepText).checks.device_mcp).toMatchObject({ ok: true, latency_ms: expect.any(Number) });
    expect(log.text()).toContain('relay listening');
    for (const leak of leaksOf(server)) {
      expect(deepText).not.toContain(leak);
      expect(log.text()).not.toContain(leak);
    }
  });
});
