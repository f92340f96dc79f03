import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';
import { errorText } from '../../src/core/error-body';

const ipv4 = z.string().regex(/^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/, 'must be an IPv4 address');
const prefix = z.string().regex(/^(?:\d{1,3}\.){3}\d{1,3}\/(?:[0-9]|[12]\d|3[0-2])$/, 'must be address/length, e.g. 10.0.0.1/30');

export const inventoryInterfaceSchema = z.strictObject({
  name: z.string().regex(/^(GigabitEthernet|TenGigabitEthernet|Loopback)\d+(\/\d+)*$/, 'must be an IOS-XE interface name'),
  description: z.string().optional(),
  ipv4: prefix.optional(),
  vrf: z.string().optional(),
  shutdown: z.boolean().default(false),
  mac: z.string().regex(/^[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}$/).optional(),
});

export const inventoryNeighborSchema = z.strictObject({
  address: ipv4,
  remote_as: z.number().int().min(1).max(4294967295),
  description: z.string().optional(),
  vrf: z.string().optional(),
  /** Router id the peer presents once the session is up. */
  remote_router_id: ipv4,
  /** Prefixes the peer advertises while the session is Established. */
  prefixes_received: z.number().int().min(0).default(0),
  shutdown: z.boolean().default(false),
});

export const inventoryDeviceSchema = z.strictObject({
  hostname: z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,62}$/),
  mgmt_ip: ipv4,
  model: z.string().default('C8000V'),
  version: z.string().default('17.9.4a'),
  serial: z.string().default('9ZZ0000000A'),
  uptime_s: z.number().int().min(60).default(8_467_200),
  vrfs: z
    .array(z.strictObject({ name: z.string().regex(/^[A-Za-z0-9_-]+$/), rd: z.string().regex(/^\d+:\d+$/) }))
    .default([]),
  interfaces: z.array(inventoryInterfaceSchema).min(1),
  bgp: z
    .strictObject({
      as: z.number().int().min(1).max(4294967295),
      router_id: ipv4,
      networks: z.array(prefix).default([]),
      neighbors: z.array(inventoryNeighborSchema).default([]),
    })
    .optional(),
});

export const inventorySchema = z.strictObject({
  devices: z.array(inventoryDeviceSchema).min(1),
});
export type Inventory = z.infer<typeof inventorySchema>;
export type InventoryDevice = z.infer<typeof inventoryDeviceSchema>;

export const DEFAULT_INVENTORY_PATH = fileURLToPath(new URL('./inventory.yaml', import.meta.url));

export class InventoryError extends Error {
  override readonly name = 'InventoryError';
}

export function parseInventory(text: string, source = 'inventory'): Inventory {
  const result = inventorySchema.safeParse(parse(text));
  if (!result.success) {
    const first = result.error.issues[0]!;
    throw new InventoryError(`${source}: ${first.path.join('.') || '(root)'}: ${first.message}`);
  }
  const inv = result.data;
  const names = new Set<string>();
  for (const d of inv.devices) {
    if (names.has(d.hostname.toLowerCase())) throw new InventoryError(`${source}: hostname ${d.hostname} appears twice`);
    names.add(d.hostname.toLowerCase());
    const vrfs = new Set(d.vrfs.map((v) => v.name));
    for (const i of d.interfaces) {
      if (i.vrf && !vrfs.has(i.vrf)) throw new InventoryError(`${source}: ${d.hostname} ${i.name} uses undefined vrf ${i.vrf}`);
    }
    for (const n of d.bgp?.neighbors ?? []) {
      if (n.vrf && !vrfs.has(n.vrf)) throw new InventoryError(`${source}: ${d.hostname} neighbor ${n.address} uses undefined vrf ${n.vrf}`);
    }
  }
  return inv;
}

export async function loadInventory(path = DEFAULT_INVENTORY_PATH): Promise<Inventory> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new InventoryError(`cannot read inventory ${path}: ${(e as NodeJS.ErrnoException).code ?? errorText(e)}`);
  }
  return parseInventory(text, path);
}

/** The simulated lab's interface addresses as the relay's inventory records them (devices/inventory-fields.ts). */
export function labAddressBook(inventory: Inventory): { devices(): Array<{ name: string; addresses: Record<string, string> }> } {
  const devices = inventory.devices.map((d) => ({ name: d.hostname, addresses: Object.fromEntries(d.interfaces.flatMap((i) => (i.ipv4 && !i.vrf ? [[i.name, i.ipv4]] : []))) }));
  return { devices: () => devices };
}
