/**
 * The SSH device tool server.
 *   npm run devices -- --inventory devices.yaml [--port 4320] [--host 127.0.0.1] [--token-file FILE] [--state-dir DIR]
 *   npm run devices -- trust R1 --inventory devices.yaml [--yes]
 * Point the relay at it with DEVICE_MCP_URL=http://127.0.0.1:4320/mcp and DEVICE_MCP_TOKEN (the
 * token: DEVICE_SERVER_TOKEN, or the one written to --token-file), or set DEVICE_INVENTORY and the
 * relay and the tray start it themselves.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { DeviceError } from '../src/adapters/devices/errors';
import { scanHostKey } from '../src/adapters/devices/host-key-scan';
import { findDevice, InventoryError, loadInventory } from '../src/adapters/devices/inventory';
import { checkHostKey, fingerprint, keyType, trustHostKey } from '../src/adapters/devices/known-hosts';
import { DEFAULT_DEVICE_SERVER_PORT, generateDeviceServerToken, MIN_DEVICE_SERVER_TOKEN_LENGTH, startDeviceServer } from '../src/adapters/devices/server';
import { supervisedMain } from '../src/adapters/devices/supervised';
import { relayEnvLines, writeTokenFile } from '../src/adapters/devices/token-file';
import { cli } from './cli';
import { errorText } from '../src/core/error-body';

const HELP = `usage:
  npm run devices -- --inventory devices.yaml [--port ${DEFAULT_DEVICE_SERVER_PORT}] [--host 127.0.0.1] [--token-file FILE] [--state-dir DIR]
  npm run devices -- trust <device> --inventory devices.yaml [--yes]
Provisional changes (config_cli with confirm_within_s) are journaled in --state-dir (default
RELAY_DATA_DIR/device-changes); a change still pending when the server died is rolled back at its next start.
Callers need the bearer token: DEVICE_SERVER_TOKEN from the environment, else a new one written
(0600) to --token-file (default RELAY_DATA_DIR/device-server.token). Give it to the relay as
DEVICE_MCP_TOKEN, e.g. DEVICE_MCP_TOKEN="$(cat FILE)"; it is never printed.`;
const { fail, parse } = cli('devices', HELP);
const values = parse(() => {
  const parsed = parseArgs({
    allowPositionals: true,
    options: {
      inventory: { type: 'string', default: process.env.DEVICE_INVENTORY },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: String(DEFAULT_DEVICE_SERVER_PORT) },
      'token-file': { type: 'string', default: join(process.env.RELAY_DATA_DIR ?? '.relay-data', 'device-server.token') },
      'state-dir': { type: 'string', default: join(process.env.RELAY_DATA_DIR ?? '.relay-data', 'device-changes') },
      yes: { type: 'boolean' },
      supervised: { type: 'boolean' },
      'ready-fd': { type: 'string' },
      'detached-child': { type: 'boolean' },
      'resume-pending': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  return { ...parsed.values, positionals: parsed.positionals };
});

async function trust(name: string, inventoryPath: string): Promise<void> {
  const inventory = await loadInventory(inventoryPath);
  const device = findDevice(inventory, name) ?? fail(`no device "${name}" in ${inventoryPath} (${[...inventory.devices.keys()].join(', ')})`);
  const blob = await scanHostKey(device.host, device.port);
  const verdict = await checkHostKey(inventory.knownHostsPath, device.host, device.port, blob);
  const print = `${device.name} (${device.host}:${device.port}) presents ${keyType(blob)} ${fingerprint(blob)}`;
  if (verdict === 'match') return void console.log(`${print}: already trusted in ${inventory.knownHostsPath}`);
  if (verdict === 'changed' || verdict === 'revoked') {
    fail(`${print}, but ${inventory.knownHostsPath} holds another key for it (${verdict}); if the change is expected, remove the old line first`);
  }
  console.log(`${print}.\nCompare this fingerprint with the one the device shows (for example "show ssh server" / ssh-keygen -lf on its key).`);
  if (!values.yes) {
    if (!process.stdin.isTTY) fail('not a terminal: add --yes to trust it without the question');
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const ok = (await rl.question('Trust this key? [y/N] ')).trim().toLowerCase() === 'y';
    rl.close();
    if (!ok) fail('not trusted; nothing written', 1);
  }
  await trustHostKey(inventory.knownHostsPath, device.host, device.port, blob);
  console.log(`trusted: added to ${inventory.knownHostsPath}`);
}

async function main(): Promise<void> {
  // Started by the relay or the tray as their dead-man's switch (src/adapters/devices/supervised.ts).
  if (values.supervised) {
    return supervisedMain(process.argv.slice(2), pino({ level: process.env.LOG_LEVEL ?? 'info' }), (code) => process.exit(code));
  }
  const inventoryPath = values.inventory ?? fail(`--inventory FILE (or DEVICE_INVENTORY) is required\n${HELP}`);
  const [command, name] = values.positionals;
  if (command === 'trust') return trust(name ?? fail('trust needs a device name'), inventoryPath);
  if (command) fail(`unknown command "${command}"\n${HELP}`);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port ${values.port} is not a port number`);
  const given = process.env.DEVICE_SERVER_TOKEN;
  // Out of the environment at once: nothing this process might start should inherit it.
  delete process.env.DEVICE_SERVER_TOKEN;
  if (given !== undefined && (given.length < MIN_DEVICE_SERVER_TOKEN_LENGTH || /\s/.test(given))) {
    fail(`DEVICE_SERVER_TOKEN must be at least ${MIN_DEVICE_SERVER_TOKEN_LENGTH} characters without spaces`);
  }
  const tokenFile = given ? undefined : resolve(values['token-file']);
  const token = given ?? generateDeviceServerToken();
  if (tokenFile) {
    writeTokenFile(tokenFile, token);
  }
  if (!['127.0.0.1', 'localhost', '::1'].includes(values.host)) {
    console.warn(`devices: listening on ${values.host}: only the token keeps other hosts out; prefer loopback and run it beside the relay`);
  }
  const server = await startDeviceServer({ inventoryPath, host: values.host, port, token, stateDir: resolve(values['state-dir']), logger: pino({ level: process.env.LOG_LEVEL ?? 'info' }) }).catch((error: unknown) => {
    if (tokenFile) rmSync(tokenFile, { force: true });
    throw error;
  });
  console.log(`device tools: MCP ${server.mcpUrl}  devices ${server.service.devices().map((d) => `${d.name} (${d.platform})`).join(', ')}`);
  console.log(`bearer token: ${tokenFile ? `written to ${tokenFile} (0600)` : 'DEVICE_SERVER_TOKEN'}; give it to the relay as DEVICE_MCP_TOKEN`);
  if (tokenFile) console.log(`for the relay: ${relayEnvLines(server.mcpUrl, tokenFile).join(' ')}`);
  // A generated token is this run's only: its file goes with it.
  const stop = () => void server.stop().then(() => {
    if (tokenFile) rmSync(tokenFile, { force: true });
    process.exit(0);
  });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  if (error instanceof InventoryError || error instanceof DeviceError) fail(error.message, 1);
  fail(error instanceof Error ? (error.stack ?? error.message) : errorText(error), 1);
});
