import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DeviceToolError } from '../../../src/core/changes/device-contract';
import { createMcpDeviceTools } from '../../../src/adapters/device-tools/mcp-device-tools';
import { DeviceService } from '../../../src/adapters/devices/device-service';
import { DeviceError, NOTHING_SENT_KINDS } from '../../../src/adapters/devices/errors';
import { parseInventory, type Inventory } from '../../../src/adapters/devices/inventory';
import { startDeviceServer } from '../../../src/adapters/devices/server';
import { tempDir } from '../../helpers/temp-dir';
import { HANG_UP_LINE, startFakeCliDevice, type FakeCliDevice } from './fake-cli-device';
import { startFakeDevice, type FakeDevice } from './fake-device';
import { failure } from '../../helpers/device-failure';

let cli: FakeCliDevice | undefined;
let other: FakeDevice | undefined;
let service: DeviceService | undefined;

afterEach(async () => {
  await service?.close();
  await cli?.stop();
  await other?.stop();
  service = cli = other = undefined;
});


/** R1 is the fake CLI; R2 a port that only counts who connects: a call that reached R2 shows there. */
async function twoRouters(): Promise<Inventory> {
  cli = await startFakeCliDevice('never');
  other = await startFakeDevice();
  const dir = tempDir('fault-relay-lookup-');
  const r1 = cli.inventoryIn(dir, 5000);
  const r2 = other.inventoryIn(tempDir('fault-relay-lookup-r2-')).devices.get('R1')!;
  return { ...r1, devices: new Map([...r1.devices, ['R2', { ...r2, name: 'R2' }]]) };
}

describe('device names as callers write them', () => {
  it('reach the inventory\'s device whatever their case and surrounding space, and only that device', async () => {
    service = new DeviceService(await twoRouters());
    expect(await service.exec('r1 ', 'show version')).toBe('FRRouting 8.4.4 (R1)');
    expect(await service.exec(' R1', 'show version')).toBe('FRRouting 8.4.4 (R1)');
    // One device, so one session and one queue, however it is named.
    expect(cli!.sessions()).toBe(1);
    expect(other!.connections()).toBe(0);
    // Errors name the device as the inventory does.
    const bad = await failure(service.exec('r1', 'show running-config | section bgp'));
    expect(bad.message).toMatch(/^R1: /);
  });

  it('an unknown name fails as unknown_device before any connection, and says nothing was sent', async () => {
    service = new DeviceService(await twoRouters());
    // ASCII letters only are folded: the Kelvin sign (which toLowerCase() makes "k") is no letter of any device.
    for (const name of ['R9', 'R1x', '\u212A1', 'R\u0131', '']) {
      const error = await failure(service.config(name, ['router bgp 65001', 'neighbor 10.0.0.2 shutdown']));
      expect(error).toMatchObject({ kind: 'unknown_device', reached: false });
      expect(error.message).toContain('the inventory has R1, R2');
    }
    expect(cli!.connections() + other!.connections()).toBe(0);
  });

  it('across MCP the error text starts with its kind, which is how the relay tells "nothing was sent"', async () => {
    const server = await startDeviceServer({ inventory: await twoRouters(), port: 0 });
    const tools = createMcpDeviceTools(server.mcpUrl, { token: server.token });
    try {
      const error = await tools.configCli('R9', ['router bgp 65001']).catch((e: unknown) => e as DeviceToolError);
      expect(error).toBeInstanceOf(DeviceToolError);
      expect((error as Error).message).toMatch(/^\[unknown_device\] unknown device "R9"/);
      expect(await tools.execCli('r1', 'show version')).toBe('FRRouting 8.4.4 (R1)');
    } finally {
      await tools.close();
      await server.stop();
    }
    expect(other!.connections()).toBe(0);
  });

  it('a change whose session drops and whose reconnect is refused is never reported as "nothing was sent"', async () => {
    service = new DeviceService(await twoRouters());
    // The line goes out, the router hangs up and refuses the reconnect the rollback needs: unreachable, after sending.
    const error = await failure(service.config('R1', [HANG_UP_LINE]));
    expect(NOTHING_SENT_KINDS.has(error.kind)).toBe(false);
    expect(error).toMatchObject({ kind: 'session_lost', reached: true });
    expect(error.message).toMatch(/^R1: the change had begun when the session failed \(.*unreachable \(ECONNREFUSED\)\); lines may have been applied: check the device$/);
    // The connect itself refused, before a change began: that is unreachable, nothing sent.
    const before = await failure(service.config('R1', ['router bgp 65001']));
    expect(before).toMatchObject({ kind: 'unreachable', reached: false });
  });

  it('a DeviceError of a "nothing sent" kind never claims the device was reached', () => {
    for (const kind of NOTHING_SENT_KINDS) expect(new DeviceError(kind, 'x', true).reached).toBe(false);
    expect(new DeviceError('timeout', 'x', true).reached).toBe(true);
  });
});

describe('an inventory built in code', () => {
  it('with two names equal ignoring case is refused by the service too', () => {
    const text = (name: string) => `devices:\n  - {name: ${name}, host: h, platform: frr, username: u, credential: {agent: true}}\n`;
    const a = parseInventory(text('R1'), join('/tmp', 'a.yaml'));
    const b = parseInventory(text('r1'), join('/tmp', 'b.yaml'));
    const merged = { ...a, devices: new Map([...a.devices, ...b.devices]) };
    expect(() => new DeviceService(merged)).toThrow('two inventory devices are named r1 ignoring case');
  });
});
