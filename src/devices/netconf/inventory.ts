import { z } from 'zod';
import { credential, deviceAddresses, deviceName, deviceTags } from '../inventory-fields';

export const NETCONF_PLATFORM_NAME = 'netconf';

/** RFC 6241 §8.4.5: the server's default when `<confirm-timeout>` is left out. */
export const DEFAULT_CONFIRM_TIMEOUT_S = 600;

/**
 * What the inventory holds for a NETCONF device: the same login fields as a CLI device (the
 * secret only ever referenced, never written here), the NETCONF-over-SSH port (830 by default,
 * RFC 6242 §3), and how long a confirmed commit may wait for its confirmation before the device
 * reverts it by itself.
 *
 * ```yaml
 * - name: PE1
 *   host: 192.0.2.21
 *   platform: netconf
 *   username: netops
 *   credential: {key_file: keys/pe1}
 *   confirm_timeout_s: 300
 * ```
 */
export const netconfDevice = z.strictObject(
  {
    name: deviceName,
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(830),
    platform: z.literal(NETCONF_PLATFORM_NAME),
    username: z.string().min(1),
    credential,
    /** Per-RPC limit: an RPC not answered in time closes the session (the device then drops the lock and reverts an unconfirmed commit). */
    command_timeout_ms: z.number().int().min(100).max(600_000).default(30_000),
    /** Seconds the device keeps a confirmed commit before reverting it unless confirmed (RFC 6241 `<confirm-timeout>`). */
    confirm_timeout_s: z.number().int().min(1).max(86_400).default(DEFAULT_CONFIRM_TIMEOUT_S),
    tags: deviceTags,
    addresses: deviceAddresses,
  },
  { error: 'a netconf device: {name, host, port?, platform: netconf, username, credential, confirm_timeout_s?}' },
);

export type NetconfDeviceEntry = z.infer<typeof netconfDevice>;
