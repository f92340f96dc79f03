import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { parseInventory, type Inventory } from '../../../src/adapters/devices/inventory';

/** The variable the fake device's inventory names for its password; set by `startFakeDevice`. */
export const FAKE_DEVICE_PASSWORD_ENV = 'FAULT_RELAY_TEST_DEVICE_PASSWORD';

export interface FakeDevice {
  /** TCP connections the device was offered: any call that reached it made one. */
  connections(): number;
  /** An inventory with R1 at this device, written into `dir` (with an empty known_hosts). */
  inventoryIn(dir: string): Inventory;
  stop(): Promise<void>;
}

/**
 * Not a router: a TCP port that counts who connects and hangs up at once. An SSH session to it
 * fails, but only after the count went up, so "reached no device" is a number, not a guess.
 */
export async function startFakeDevice(): Promise<FakeDevice> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  process.env[FAKE_DEVICE_PASSWORD_ENV] = 'not-a-real-password';
  return {
    connections: () => count,
    inventoryIn(dir) {
      const path = join(dir, 'devices.yaml');
      const text = [
        'known_hosts: ./known_hosts',
        'devices:',
        '  - name: R1',
        '    host: 127.0.0.1',
        `    port: ${port}`,
        '    platform: frr',
        '    username: relay',
        `    credential: { password_env: ${FAKE_DEVICE_PASSWORD_ENV} }`,
        '',
      ].join('\n');
      writeFileSync(path, text);
      writeFileSync(join(dir, 'known_hosts'), '');
      return parseInventory(text, path);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
