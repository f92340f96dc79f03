import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

export const PLATFORMS = ['ios', 'iosxe', 'nxos', 'eos', 'frr'] as const;
export type PlatformName = (typeof PLATFORMS)[number];

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable (letters, digits, "_")');

/**
 * Where the login secret comes from. Never the secret itself: the inventory is a file people commit
 * and share, so a password or key in it is refused with the way to reference one instead.
 */
const credential = z.union(
  [
    z.strictObject({ agent: z.literal(true) }),
    z.strictObject({ key_file: z.string().min(1), passphrase_env: envName.optional() }),
    z.strictObject({ password_env: envName }),
  ],
  { error: 'one of {agent: true}, {key_file: PATH, passphrase_env?: NAME} or {password_env: NAME} (no secret in this file)' },
);

const device = z.strictObject(
  {
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, 'a device name (letters, digits, "_", "." or "-")'),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(22),
    platform: z.enum(PLATFORMS, { error: `one of ${PLATFORMS.join(', ')}` }),
    username: z.string().min(1),
    credential,
    /** Per-command limit; a command that does not bring the prompt back in time fails with `timeout`. */
    command_timeout_ms: z.number().int().min(100).max(600_000).default(20_000),
  },
  { error: 'a device: {name, host, port?, platform, username, credential}' },
);

export const inventorySchema = z.strictObject({
  /** OpenSSH known_hosts file with every device's host key; relative paths are from the inventory's folder. */
  known_hosts: z.string().min(1).optional(),
  devices: z.array(device).min(1, 'at least one device'),
});

export type DeviceEntry = z.infer<typeof device>;
export interface Inventory {
  path: string;
  knownHostsPath: string;
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

export function parseInventory(text: string, path: string): Inventory {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw new InventoryError(`${path}: not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = inventorySchema.safeParse(raw);
  if (!parsed.success) throw new InventoryError(`${path}:\n${describe(parsed.error.issues)}`);
  const base = dirname(resolve(path));
  const at = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  const devices = new Map<string, DeviceEntry>();
  const dupes: string[] = [];
  for (const d of parsed.data.devices) {
    if (devices.has(d.name)) dupes.push(d.name);
    const cred = 'key_file' in d.credential ? { ...d.credential, key_file: at(d.credential.key_file) } : d.credential;
    devices.set(d.name, { ...d, credential: cred });
  }
  if (dupes.length) throw new InventoryError(`${path}: device names must be unique: ${dupes.join(', ')}`);
  return { path: resolve(path), knownHostsPath: at(parsed.data.known_hosts ?? 'known_hosts'), devices };
}

export async function loadInventory(path: string): Promise<Inventory> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InventoryError(`cannot read the device inventory ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseInventory(text, path);
}
