import type { ConfigPreview } from '../../runbooks/config-preview';

/** What a change's apply is given: its deadline (provisional), the preview's fingerprint, and the journal's hook. */
export interface ApplyOptions {
  /** The device keeps the change provisional for this long (a driver whose device reverts by itself); otherwise the server does. */
  confirmWithinS?: number;
  /** The configuration fingerprint the change was previewed on: nothing is sent when the device's differs. */
  expectSha256?: string;
  /** Gets the configuration read before the change and runs before the first line is sent (the server's journal). */
  journal?(before: string): void;
}

/**
 * One device as the device service drives it, whatever it speaks: the service picks a driver per
 * device once (device-slots.ts), and everything after that goes through this interface. Every call
 * runs inside the device's queue (one call at a time per device).
 */
export interface DeviceDriver {
  /**
   * The device reverts an unconfirmed change by itself (NETCONF's confirmed commit); otherwise the
   * server keeps the guarantee (a journal written before the first line, a rollback when the session drops).
   */
  readonly revertsItself: boolean;
  /** One read-only command, already checked against the read-only rule and the platform's grammar. */
  exec(command: string): Promise<string>;
  /** What the lines would change, without changing the device; `exclusive` runs work in the device's queue. */
  preview(lines: string[], exclusive: <T>(work: () => Promise<T>) => Promise<T>): Promise<ConfigPreview>;
  /** Sends the change, all or nothing; with `confirmWithinS` on a device that reverts by itself, provisional there. */
  applyProvisional(lines: string[], opts: ApplyOptions): Promise<string>;
  /** Makes a provisional change final (the confirming commit), in words; nothing to send where the server keeps the guarantee. */
  confirm(): Promise<string>;
  /** Puts the configuration from before back and reads it back: whether it matches, in words. Throws when it could not try. */
  rollback(before: string): Promise<{ restored: boolean; detail: string }>;
  /** A change the device itself holds provisional, and until when. */
  pending(): { deadline: Date; timeoutS: number } | undefined;
  /** Calls `fn` once if the device's current session drops (not when the server closes it). */
  onSessionLost(fn: () => void): void;
  /** Drops the session as if the network had (tests, `--reconnect`). */
  drop(): void;
  close(): Promise<void>;
}
