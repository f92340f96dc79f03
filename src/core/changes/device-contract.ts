import { z } from 'zod';
import { ConfigPreview } from '../../runbooks/config-preview';
import { deviceFailure, type DeviceFailure } from './device-failure';

/**
 * A provisional change's life: it stays `pending` until confirmed, and the device tool server puts
 * the configuration from before back (and reads it back) when it is not confirmed in time, when the
 * relay asks, or when the server stops or restarts with it still pending.
 */
export const ChangeState = z.enum(['pending', 'confirmed', 'rolled_back', 'rollback_failed']);
export type ChangeState = z.infer<typeof ChangeState>;

export const ChangeStatus = z.object({
  change_id: z.string(),
  device: z.string(),
  state: ChangeState,
  /** ISO time the change rolls back unless confirmed. */
  deadline: z.string(),
  /** Why it was rolled back: 'deadline' | 'requested' | 'server_restart' | 'session_lost' | 'server_stop', or the relay's own text for a requested one. */
  reason: z.string().optional(),
  /** The read-back result, e.g. what still differs when rollback_failed. */
  detail: z.string().optional(),
  /** On the apply's answer: the configuration fingerprint the server checked before the first line (as the caller expected). */
  before_sha256: z.string().optional(),
});
export type ChangeStatus = z.infer<typeof ChangeStatus>;

/** The bounds of `confirm_within_s`: long enough for a post-check, short enough that a lost relay cannot leave a change hanging. */
export const CONFIRM_WITHIN_S = { min: 5, max: 3600 } as const;

/**
 * The promise the device server keeps for a change nobody confirms: its rollback starts at the deadline
 * and has put the configuration back and read it back (the outcome's `at`) within this many seconds
 * after it. A rollback that ends later says so in its outcome and the server's log.
 */
export const ROLLBACK_GRACE_S = 30;

/** What the RAW engine (and anything else) needs from a device-automation server. */
export interface DeviceTools {
  execCli(device: string, command: string): Promise<string>;
  /** With `confirmWithinS` the change is provisional (see configProvisional); the result text is the same either way. */
  configCli(device: string, commands: string[], opts?: { confirmWithinS?: number } & ApplyExpect): Promise<string>;
  /** Like configCli but provisional: resolves with the output and the pending change. */
  configProvisional(device: string, commands: string[], confirmWithinS: number, opts?: ProvisionalOpts): Promise<{ output: string; change: ChangeStatus }>;
  confirmChange(device: string, changeId: string): Promise<ChangeStatus>;
  rollbackChange(device: string, changeId: string, reason: string): Promise<ChangeStatus>;
  changeStatus(device: string, changeId: string): Promise<ChangeStatus>;
  /** What the lines would change on the live device (config-preview.ts); read-only, never changes the device. */
  previewConfig(device: string, commands: string[]): Promise<ConfigPreview>;
}

/**
 * The configuration the change was approved on (config-fingerprint.ts): the server reads the device's
 * configuration before the first line and sends nothing when its fingerprint differs.
 */
export interface ApplyExpect {
  expectConfigSha256?: string;
}

/**
 * `changeId`: the id the change is to carry, chosen by the caller and recorded before the lines are
 * sent, so the caller can ask the server about the change (status, rollback) even when the answer to
 * the apply never reaches it (the server died meanwhile). A server that never took it answers `not_pending`.
 */
export interface ProvisionalOpts extends ApplyExpect {
  changeId?: string;
}

/** The form of a change id (the server's own, or one a caller chose). */
export const CHANGE_ID = /^[\w-]{1,100}$/;

export type DeviceToolName = 'exec_cli' | 'config_cli' | 'confirm_change' | 'rollback_change' | 'change_status' | 'preview_config';

/** The device or the tool refused: unknown host, unreachable, invalid input, rejected config; `failure` says how (device-failure.ts). */
export class DeviceToolError extends Error {
  override readonly name = 'DeviceToolError';
  constructor(
    readonly tool: DeviceToolName,
    message: string,
    readonly failure: DeviceFailure,
  ) {
    super(message);
  }

  /** False when nothing was sent to the device (so nothing there can have changed). */
  get reached(): boolean {
    return this.failure.reached;
  }
}

const UNSUPPORTED = deviceFailure('unsupported', false);

/**
 * The provisional-change half of DeviceTools for a stand-in that only runs commands (tests, the FRR
 * RAW runner): every call is refused, so nothing can mistake it for a change kept provisional.
 */
export const WITHOUT_PROVISIONAL: Omit<DeviceTools, 'execCli' | 'configCli'> = {
  configProvisional: () => Promise.reject(new DeviceToolError('config_cli', 'this device tool stand-in keeps no provisional changes', UNSUPPORTED)),
  confirmChange: () => Promise.reject(new DeviceToolError('confirm_change', 'this device tool stand-in keeps no provisional changes', UNSUPPORTED)),
  rollbackChange: () => Promise.reject(new DeviceToolError('rollback_change', 'this device tool stand-in keeps no provisional changes', UNSUPPORTED)),
  changeStatus: () => Promise.reject(new DeviceToolError('change_status', 'this device tool stand-in keeps no provisional changes', UNSUPPORTED)),
  // A stand-in has no configuration to diff: it accepts and predicts nothing.
  previewConfig: (device) => Promise.resolve({ device, accepted: true, method: 'predicted', added: [], removed: [], problems: [] }),
};
