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
  | 'session_lost';

export class DeviceError extends Error {
  constructor(
    readonly kind: DeviceErrorKind,
    message: string,
    /** False when nothing was sent to the device (so nothing there can have changed). */
    readonly reached = false,
  ) {
    super(message);
  }
}
