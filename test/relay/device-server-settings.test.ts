import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { RunningDeviceServer } from '../../src/adapters/devices/server';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { startFakeDevice, type FakeDevice } from '../unit/devices/fake-device';

// A handle on the server the relay starts, only to know which address must appear nowhere.
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

const SECRET = 'settings-view-secret-5d1e';
const auth = { authorization: `Bearer ${SECRET}` };
type Field = { name: string; value: string | null; inForce: string | null; isSet: boolean; source: string };

let device: FakeDevice;
beforeAll(async () => {
  device = await startFakeDevice();
});
afterAll(async () => device?.stop());

describe('the /ui settings view of a relay that started its own device server', () => {
  it('shows DEVICE_MCP_URL as unset and the server\'s address nowhere, while /health/deep still checks the server', async () => {
    const inventory = device.inventoryIn(tempDir('relay-settings-devices-')).path;
    const relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET, DEVICE_INVENTORY: inventory, DEVICE_SERVER_MODE: 'in-process' } });
    onTestFinished(() => relay.close());
    const server = started.at(-1)!;
    const port = new URL(server.url).port;

    const res = await relay.app.inject({ url: '/ui/api/settings', headers: auth });
    expect(res.statusCode).toBe(200);
    const fields = res.json<Field[]>();
    expect(fields.find((f) => f.name === 'DEVICE_MCP_URL')).toMatchObject({ value: null, inForce: null, isSet: false });
    expect(fields.find((f) => f.name === 'DEVICE_INVENTORY')).toMatchObject({ value: inventory });
    for (const leak of [server.mcpUrl, server.url, `:${port}`, server.token]) expect(res.body).not.toContain(leak);

    const deep = await relay.app.inject({ url: '/health/deep', headers: auth });
    expect(deep.json().checks.device_mcp).toMatchObject({ ok: true, latency_ms: expect.any(Number), status_code: 200 });
    expect(deep.body).not.toContain(`:${port}`);
  });

  it('shows a DEVICE_MCP_URL the operator set, and probes that one', async () => {
    const relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET, DEVICE_MCP_URL: 'http://127.0.0.1:9/mcp' } });
    onTestFinished(() => relay.close());
    const fields = (await relay.app.inject({ url: '/ui/api/settings', headers: auth })).json<Field[]>();
    expect(fields.find((f) => f.name === 'DEVICE_MCP_URL')).toMatchObject({ value: 'http://127.0.0.1:9/mcp', isSet: true });
    // Port 9 (discard) has no listener here: the probe went to the configured URL, and says so without it.
    const check = (await relay.app.inject({ url: '/health/deep', headers: auth })).json().checks.device_mcp;
    expect(check).toMatchObject({ ok: false, error: 'not reachable from the relay (ECONNREFUSED)' });
  });
});
