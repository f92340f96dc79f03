import { z } from 'zod';

/**
 * Why a device tool call failed, as a kind a caller can act on. Every implementation of the
 * device-tool contract (the device server's drivers, the simulated lab, the MCP client) says it with
 * one of these, never in its message's words.
 */
export const DEVICE_ERROR_KINDS = [
  'unknown_device',
  'not_in_grammar',
  'unreachable',
  'auth_failed',
  'host_key_unknown',
  'host_key_changed',
  'timeout',
  'rejected',
  'busy',
  'session_lost',
  /** A provisional change is already pending on the device: confirm or roll it back first (nothing was sent). */
  'change_pending',
  /** Confirm (or roll back) a change that is not pending: already decided, or unknown. */
  'not_pending',
  /** The device's configuration is not the one the approved preview was computed against (nothing was sent). */
  'fingerprint_mismatch',
  /** The device tool server could not be reached or refused the relay's credential (nothing was sent). */
  'server_unreachable',
  /** The device tool behind this port does not offer the call (a read-only stand-in): nothing was sent. */
  'unsupported',
  /** Anything else the server failed with, or an answer without a failure it could read: its state must be checked. */
  'internal',
] as const;
export const DeviceErrorKind = z.enum(DEVICE_ERROR_KINDS);
export type DeviceErrorKind = z.infer<typeof DeviceErrorKind>;

/**
 * The kinds that mean NOTHING WAS SENT to the device: the name is not in the inventory, the grammar
 * refused a line before it was typed, the SSH connection failed before a shell was used
 * (unreachable, auth_failed, host_key_*), a change was already pending, the device changed since the
 * preview, or the device tool server itself was not reached. A failure of one of these kinds never
 * says `reached`. Once a change has begun on a session, its failure never carries one of them (a
 * reconnect that fails mid-change is `session_lost`).
 */
export const NOTHING_SENT_KINDS: ReadonlySet<DeviceErrorKind> = new Set<DeviceErrorKind>([
  'unknown_device',
  'not_in_grammar',
  'unreachable',
  'auth_failed',
  'host_key_unknown',
  'host_key_changed',
  'change_pending',
  'fingerprint_mismatch',
  'server_unreachable',
  'unsupported',
]);

/** A device tool's failure as it travels (MCP structuredContent `{error: …}`): what a caller decides on. */
export const DeviceFailure = z.object({
  kind: DeviceErrorKind,
  /** Whether anything of the call reached the device: false means nothing was sent, so nothing there changed. */
  reached: z.boolean(),
  /**
   * For a change that reached the device: true when the device was read back (or its change aborted
   * whole) and holds the configuration from before, false when it was read back and still differs.
   * Absent when that is not known.
   */
  restored: z.boolean().optional(),
  /** Structured detail of a refusal (a fingerprint mismatch: its hashes and what changed); unchecked, parse before use. */
  detail: z.record(z.string(), z.unknown()).optional(),
});
export type DeviceFailure = z.infer<typeof DeviceFailure>;

/** A failure of `kind`; a "nothing sent" kind never claims to have reached the device, whatever the caller said. */
export function deviceFailure(kind: DeviceErrorKind, reached: boolean, more: { restored?: boolean; detail?: Record<string, unknown> } = {}): DeviceFailure {
  const sent = NOTHING_SENT_KINDS.has(kind) ? false : reached;
  return { kind, reached: sent, ...(sent && more.restored !== undefined ? { restored: more.restored } : {}), ...(more.detail ? { detail: more.detail } : {}) };
}

/** Kinds after which lines may be on the device with nobody having read it back: a lost session, a timeout, a server fault. */
const BROKEN_OFF: ReadonlySet<DeviceErrorKind> = new Set<DeviceErrorKind>(['session_lost', 'timeout', 'internal']);

/**
 * A change that failed part-way with the device left in a state nobody knows: some lines reached
 * it, and either its read-back found it still different from before, or the call broke off (session
 * lost, timeout, server fault) and no read-back showed it put back. Read from the failure's fields,
 * never from its message. A refusal the device answered (`rejected`) was put back by the server
 * unless it says `restored: false`.
 */
export function leftUnknown(f: DeviceFailure): boolean {
  if (!f.reached) return false;
  if (f.restored === false) return true;
  return f.restored === undefined && BROKEN_OFF.has(f.kind);
}
