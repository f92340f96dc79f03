import { z } from 'zod';

/**
 * The fields every inventory entry shares, whatever the platform: the name alerts use, and where
 * the login secret comes from. Kept apart from inventory.ts so platform schemas (netconf/inventory.ts)
 * build on the same definitions without an import cycle.
 */
export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable (letters, digits, "_")');

/**
 * Where the login secret comes from. Never the secret itself: the inventory is a file people commit
 * and share, so a password or key in it is refused with the way to reference one instead.
 */
export const credential = z.union(
  [
    z.strictObject({ agent: z.literal(true) }),
    z.strictObject({ key_file: z.string().min(1), passphrase_env: envName.optional() }),
    z.strictObject({ password_env: envName }),
  ],
  { error: 'one of {agent: true}, {key_file: PATH, passphrase_env?: NAME} or {password_env: NAME} (no secret in this file)' },
);

export const deviceName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, 'a device name (letters, digits, "_", "." or "-")');

/**
 * What a team says about a device for its change policy (role: core, site: ams1 …): plain labels the
 * policy's rules read as `device.tags`, never used to reach the device.
 */
export const deviceTags = z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,31}$/, 'a tag name (letters, digits, "_")'), z.string().max(200)).optional();

const IPV4_PREFIX = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\/(?:[0-9]|[12]\d|3[0-2])$/;

/**
 * The device's interface addresses (interface name → address/length), as the team records them: how
 * the relay finds the other devices of a repair plan from an alert (the far end of a link, the peer
 * of a session by its neighbor address), never from the model. Never used to reach the device.
 */
export const deviceAddresses = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9/.:-]{0,63}$/, 'an interface name'), z.string().regex(IPV4_PREFIX, 'an IPv4 address/length, e.g. 10.0.0.1/30'))
  .optional();
