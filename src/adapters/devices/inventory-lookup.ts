import { readFileSync, statSync } from 'node:fs';
import { findDevice, parseInventory } from './inventory';

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
  let seen = -1;
  let read: ReturnType<typeof parseInventory> | undefined;
  return (name) => {
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
    const entry = read ? findDevice(read, name) : undefined;
    return entry ? { platform: entry.platform, tags: entry.tags ?? {} } : undefined;
  };
}
