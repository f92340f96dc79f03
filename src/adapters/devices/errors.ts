/**
 * Why a device call failed, as a kind a caller can act on. Messages name the device and what to
 * do; they never carry a credential (the server only ever holds a password in memory, from the
 * environment variable the inventory names).
 */
export type DeviceErrorKind =
  | 'unknown_device'
  | 'not_in_grammar'
  | 'unreachable'
  | 'auth_failed'
  | 'host_key_unknown'
  | 'host_key_changed'
  | 'timeout'
  | 'rejected'
  | 'busy'
  | 'session_lost'
  /** A provisional change is already pending on the device: confirm or roll it back first (nothing was sent). */
  | 'change_pending'
  /** Confirm (or roll back) a change that is not pending: already decided, or unknown. */
  | 'not_pending'
  /** The device's configuration is not the one the approved preview was computed against (nothing was sent). */
  | 'fingerprint_mismatch';

/**
 * The kinds that mean NOTHING WAS SENT to the device: the name is not in the inventory, the grammar
 * refused a line before it was typed, or the SSH connection failed before a shell was used
 * (unreachable, auth_failed, host_key_*). A failed change of one of these kinds cannot have touched
 * the router, so the relay's guard may release the approval instead of spending it. The MCP tool
 * error carries the kind as its first word (`[unknown_device] …`), which is how a caller across MCP
 * tells them apart. DeviceService guarantees that once a change has begun on a session, its failure
 * never carries one of these kinds (a reconnect that fails mid-change is reported as `session_lost`).
 * Every other kind (timeout, rejected, busy, session_lost, and `[internal]`) may follow lines the
 * device received: the device's state must be checked.
 */
export const NOTHING_SENT_KINDS: ReadonlySet<DeviceErrorKind> = new Set([
  'unknown_device',
  'not_in_grammar',
  'unreachable',
  'auth_failed',
  'host_key_unknown',
  'host_key_changed',
  'change_pending',
  'fingerprint_mismatch',
]);

export class DeviceError extends Error {
  /** False when nothing was sent to the device (so nothing there can have changed). */
  readonly reached: boolean;

  constructor(
    readonly kind: DeviceErrorKind,
    message: string,
    reached = false,
    /** Structured detail a caller across MCP reads (a fingerprint mismatch: its hashes and what changed). */
    readonly detail?: Record<string, unknown>,
  ) {
    super(message);
    // A "nothing sent" kind never claims otherwise, so the flag and the kind a remote caller sees agree.
    this.reached = NOTHING_SENT_KINDS.has(kind) ? false : reached;
  }
}

