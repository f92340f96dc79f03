import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { credential, deviceAddresses, deviceName, deviceTags } from './inventory-fields';
import { NETCONF_PLATFORM_NAME, netconfDevice } from './netconf/inventory';

/** Platforms reached through an interactive CLI session (a pty); see platforms.ts. */
export const CLI_PLATFORMS = ['ios', 'iosxe', 'nxos', 'eos', 'frr'] as const;
/** Every platform an inventory may name: the CLI ones, and NETCONF over SSH (netconf/). */
export const PLATFORMS = [...CLI_PLATFORMS, NETCONF_PLATFORM_NAME] as const;
export type PlatformName = (typeof PLATFORMS)[number];

const cliDevice = z.strictObject({
  name: deviceName,
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535).default(22),
  platform: z.enum(CLI_PLATFORMS),
  username: z.string().min(1),
  credential,
  /** Per-command limit; a command that does not bring the prompt back in time fails with `timeout`. */
  command_timeout_ms: z.number().int().min(100).max(600_000).default(20_000),
  tags: deviceTags,
  addresses: deviceAddresses,
}, { error: 'a device: {name, host, port?, platform, username, credential}' });

/** The entry's shape follows its `platform`: a netconf device has its own fields (netconf/inventory.ts). */
const device = z.discriminatedUnion('platform', [cliDevice, netconfDevice], {
  error: (issue) =>
    issue.code === 'invalid_union' && 'note' in issue && issue.note === 'No matching discriminator'
      ? `one of ${PLATFORMS.join(', ')}`
      : 'a device: {name, host, port?, platform, username, credential}',
});

export const inventorySchema = z.strictObject({
  /** OpenSSH known_hosts file with every device's host key; relative paths are from the inventory's folder. */
  known_hosts: z.string().min(1).optional(),
  devices: z.array(device).min(1, 'at least one device'),
});

export type DeviceEntry = z.infer<typeof device>;
export interface Inventory {
  path: string;
  knownHostsPath: string;
  /** By canonical name, as the inventory writes it; look names up with `findDevice`. */
  devices: Map<string, DeviceEntry>;
}

export class InventoryError extends Error {}

const SECRET_KEYS = /^(password|passphrase|secret|private_key|key)$/;

/** One line per problem, each naming where it is (`devices[1].platform: …`). */
function describe(issues: z.core.$ZodIssue[]): string {
  return issues
    .map((i) => {
      const where = i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') || 'inventory';
      if (i.code === 'unrecognized_keys' && i.keys.some((k) => SECRET_KEYS.test(k))) {
        return `${where}: ${i.keys.join(', ')}: no secret in the inventory; use credential {password_env: NAME} or {key_file: PATH}`;
      }
      return `${where}: ${i.message}`;
    })
    .join('\n');
}

/**
 * How a device name is compared: surrounding space dropped, ASCII letters folded. The relay's guard
 * compares names this way, so two inventory entries equal under it would be one device to the guard
 * (an approval for `R1` applied to `r1`). Only A-Z is folded: a look-alike such as the Kelvin sign,
 * which toLowerCase() turns into "k", stays different and matches no (ASCII-only) inventory name.
 */
export { deviceKey } from '../../runbooks/device-name';
import { deviceKey } from '../../runbooks/device-name';
import { errorText } from '../../core/error-body';

/** The inventory's entry for `name` (any case, surrounding space ignored), under its canonical name. */
export function findDevice(inventory: Pick<Inventory, 'devices'>, name: string): DeviceEntry | undefined {
  const key = deviceKey(name);
  for (const entry of inventory.devices.values()) if (deviceKey(entry.name) === key) return entry;
  return undefined;
}

/** The 1-based line of `devices[index]`'s name in the file (or of the entry, when the name is not written there). */
function lineOf(doc: Document, lines: LineCounter, index: number): number | undefined {
  const seq = doc.get('devices', true);
  const item = isSeq(seq) ? seq.items[index] : undefined;
  const name = isMap(item) ? item.get('name', true) : undefined;
  const at = (isScalar(name) ? name.range : (item as { range?: [number, number, number] } | undefined)?.range)?.[0];
  return at === undefined ? undefined : lines.linePos(at).line;
}

export function parseInventory(text: string, path: string): Inventory {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length) throw new InventoryError(`${path}: not YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  const parsed = inventorySchema.safeParse(doc.toJS());
  if (!parsed.success) throw new InventoryError(`${path}:\n${describe(parsed.error.issues)}`);
  const base = dirname(resolve(path));
  const at = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  const devices = new Map<string, DeviceEntry>();
  const firstOf = new Map<string, number>();
  const clashes: string[] = [];
  const where = (i: number) => {
    const line = lineOf(doc, lines, i);
    return `devices[${i}] "${parsed.data.devices[i]!.name}"${line ? ` (line ${line})` : ''}`;
  };
  for (const [i, d] of parsed.data.devices.entries()) {
    const first = firstOf.get(deviceKey(d.name));
    if (first !== undefined) {
      clashes.push(`${where(i)} is the same device as ${where(first)}`);
      continue;
    }
    firstOf.set(deviceKey(d.name), i);
    const cred = 'key_file' in d.credential ? { ...d.credential, key_file: at(d.credential.key_file) } : d.credential;
    devices.set(d.name, { ...d, credential: cred });
  }
  if (clashes.length) {
    throw new InventoryError(`${path}: device names must be unique, ignoring case and surrounding space (the relay's guard compares them so):\n${clashes.join('\n')}`);
  }
  return { path: resolve(path), knownHostsPath: at(parsed.data.known_hosts ?? 'known_hosts'), devices };
}

export async function loadInventory(path: string): Promise<Inventory> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InventoryError(`cannot read the device inventory ${path}: ${(error as NodeJS.ErrnoException).code ?? errorText(error)}`);
  }
  return parseInventory(text, path);
}
