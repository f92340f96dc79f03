import { readFileSync, statSync } from 'node:fs';
import type { AddressBook } from '../artifacts/plan-devices';
import { findDevice, parseInventory, type Inventory } from './inventory';

/** What the change policy may know of a device: its platform and the tags a team gave it, never how to reach it. */
export interface DeviceFacts {
  platform: string;
  tags: Record<string, string>;
}

/**
 * The inventory's facts for a device name, read again whenever the file changes. An inventory that
 * does not load answers nothing (the device server reports why); the policy then sees only the name.
 */
export function inventoryFacts(path: string | undefined): (name: string) => DeviceFacts | undefined {
  if (!path) return () => undefined;
  const read = freshInventory(path);
  return (name) => {
    const inventory = read();
    const entry = inventory ? findDevice(inventory, name) : undefined;
    return entry ? { platform: entry.platform, tags: entry.tags ?? {} } : undefined;
  };
}

/** The inventory as the file is now, read again only when it changed; undefined while it does not load. */
function freshInventory(path: string): () => Inventory | undefined {
  let seen = -1;
  let read: Inventory | undefined;
  return () => {
    try {
      const mtime = statSync(path).mtimeMs;
      if (mtime !== seen) {
        seen = mtime;
        read = undefined;
        read = parseInventory(readFileSync(path, 'utf8'), path);
      }
    } catch {
      return undefined;
    }
    return read;
  };
}

/** Every device's recorded addresses (an inventory that does not load lists none): plan devices are found in it. */
export function inventoryAddressBook(path: string): AddressBook {
  const read = freshInventory(path);
  return { devices: () => [...(read()?.devices.values() ?? [])].map((d) => ({ name: d.name, addresses: d.addresses ?? {} })) };
}
