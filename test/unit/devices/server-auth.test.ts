import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceToolError } from '../../../src/core/changes/device-contract';
import { createMcpDeviceTools } from '../../../src/adapters/device-tools/mcp-device-tools';
import { allowedHostHeaders, bearerMatches, startDeviceServer, type RunningDeviceServer } from '../../../src/adapters/devices/server';
import { tempDir } from '../../helpers/temp-dir';
import { startFakeDevice, type FakeDevice } from './fake-device';

const TOKEN = 'device-server-test-token-0123456789';

let device: FakeDevice;
let server: RunningDeviceServer;
let port: number;

beforeAll(async () => {
  device = await startFakeDevice();
  server = await startDeviceServer({ inventory: device.inventoryIn(tempDir('device-server-auth-')), port: 0, token: TOKEN });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.stop();
  await device?.stop();
});

/** A raw request, so the test chooses the Host header and the credential (fetch would pick the Host itself). */
function send(path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; headers: Record<string, unknown>; json: unknown }> {
  return new Promise((resolve, reject) => {
    const all: Record<string, string> = { host: `127.0.0.1:${port}`, ...headers };
    // An empty Host means none at all (node would otherwise fill in its own).
    const setHost = all.host !== '';
    if (!setHost) delete all.host;
    const req = request({ host: '127.0.0.1', port, path, method: body === undefined ? 'GET' : 'POST', headers: all, setHost }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
/** What a caller skipping the handshake would send: straight to the tool that touches the router. */
const shutdownCall = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'config_cli', arguments: { device: 'R1', commands: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'] } },
};
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe('the device tool server takes calls only with its token and a loopback Host', () => {
  it('without the token: 401 in the relay\'s error shape, and no device was contacted', async () => {
    const before = device.connections();
    for (const headers of [MCP, { ...MCP, authorization: 'Bearer wrong-token-wrong-token-00' }, { ...MCP, authorization: `Basic ${TOKEN}` }, { ...MCP, authorization: `Bearer ${TOKEN}x` }]) {
      const res = await send('/mcp', headers, shutdownCall);
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(JSON.stringify(res.json)).not.toContain(TOKEN);
    }
    expect(device.connections()).toBe(before);
  });

  it('a Host that is not loopback on this port is refused before the credential is even looked at, /health too', async () => {
    const before = device.connections();
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${port + 1}`, `localhost.evil.example:${port}`, '127.0.0.1', `0.0.0.0:${port}`]) {
      const mcp = await send('/mcp', { ...MCP, authorization: `Bearer ${TOKEN}`, host }, shutdownCall);
      expect(mcp.status).toBe(421);
      expect(mcp.json).toEqual({ error: { code: 'host_not_allowed', message: expect.any(String) } });
      expect((await send('/health', { host })).status).toBe(421);
    }
    // No Host at all: node's own HTTP/1.1 check answers 400 before ours runs.
    expect((await send('/mcp', { ...MCP, authorization: `Bearer ${TOKEN}`, host: '' }, shutdownCall)).status).toBe(400);
    expect(device.connections()).toBe(before);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      expect((await send('/health', { host })).status).toBe(200);
    }
  });

  it('with the token and a loopback Host the MCP endpoint answers', async () => {
    const res = await send('/mcp', { ...MCP, authorization: `Bearer ${TOKEN}`, host: `localhost:${port}` }, initialize);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ result: { serverInfo: { name: 'fault-relay-ssh-devices' } } });
  });

  it('the relay\'s client with the token reaches the device; without it, it says which setting is wrong and nothing is sent', async () => {
    const before = device.connections();
    const without = createMcpDeviceTools(server.mcpUrl);
    const error = await without.execCli('R1', 'show version').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeviceToolError);
    expect(error).toMatchObject({ reached: false, message: expect.stringContaining('DEVICE_MCP_TOKEN') });
    await without.close();
    expect(device.connections()).toBe(before);

    const tools = createMcpDeviceTools(server.mcpUrl, { token: TOKEN });
    // The fake device hangs up, so the call fails; what matters is that it got there.
    await expect(tools.execCli('R1', 'show version')).rejects.toBeInstanceOf(DeviceToolError);
    await tools.close();
    expect(device.connections()).toBeGreaterThan(before);
  });

  it('refuses to start with a short token', async () => {
    await expect(startDeviceServer({ inventory: device.inventoryIn(tempDir('device-server-short-')), port: 0, token: 'short' })).rejects.toThrow(/at least 16/);
  });
});

describe('bearerMatches and allowedHostHeaders', () => {
  it('accepts exactly "Bearer <token>"', () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
    for (const h of [undefined, '', 'Bearer', `Bearer ${TOKEN} extra`, `Token ${TOKEN}`, `Bearer ${TOKEN.slice(1)}`]) expect(bearerMatches(h, TOKEN)).toBe(false);
  });

  it('loopback names on the served port; a specific bind address added, a wildcard never', () => {
    expect([...allowedHostHeaders('127.0.0.1', 4320)]).toEqual(['127.0.0.1:4320', 'localhost:4320', '[::1]:4320']);
    expect([...allowedHostHeaders('0.0.0.0', 4320)]).toEqual(['127.0.0.1:4320', 'localhost:4320', '[::1]:4320']);
    expect([...allowedHostHeaders('::1', 4320)]).toEqual(['127.0.0.1:4320', 'localhost:4320', '[::1]:4320']);
    expect(allowedHostHeaders('10.0.0.5', 4320).has('10.0.0.5:4320')).toBe(true);
  });
});
