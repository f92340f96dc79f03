import { deviceFailure, type DeviceErrorKind, type DeviceFailure } from '../../core/changes/device-failure';

export { NOTHING_SENT_KINDS, type DeviceErrorKind } from '../../core/changes/device-failure';

/**
 * Why a device call failed on the device server, as a kind a caller can act on (the contract's
 * kinds: src/core/changes/device-failure.ts). Messages name the device and what to do; they never
 * carry a credential (the server only ever holds a password in memory, from the environment
 * variable the inventory names). `failure` is what travels to the relay.
 */
export class DeviceError extends Error {
  /** What travels: the kind, whether anything reached the device, whether it was read back as before. */
  readonly failure: DeviceFailure;

  constructor(
    readonly kind: DeviceErrorKind,
    message: string,
    reached = false,
    more: { restored?: boolean; detail?: Record<string, unknown> } = {},
  ) {
    super(message);
    // A "nothing sent" kind never claims otherwise, so the flag and the kind a remote caller sees agree.
    this.failure = deviceFailure(kind, reached, more);
  }

  /** False when nothing was sent to the device (so nothing there can have changed). */
  get reached(): boolean {
    return this.failure.reached;
  }

  /** Structured detail a caller reads (a fingerprint mismatch: its hashes and what changed). */
  get detail(): Record<string, unknown> | undefined {
    return this.failure.detail;
  }
}
