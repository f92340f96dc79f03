import { z } from 'zod';
import { define } from '../define';

const commands = z.array(z.string());
const change = { change_id: z.string(), device: z.string() };
const ended = { ...change, state: z.string(), reason: z.string(), by: z.string().optional() };
const fingerprint = { device: z.string(), before_sha256: z.string(), now_sha256: z.string().nullable() };

/** What reached the devices, or was refused, and how a provisional change ended. */
export const deviceEntries = {
  deviceExec: define('device.exec', z.looseObject({ device: z.string(), command: z.string(), output: z.string(), by: z.string().optional() }), 'device'),
  deviceError: define('device.error', z.looseObject({ tool: z.string(), device: z.string(), command: z.string() }), 'error'),
  deviceRefused: define('device.refused', z.looseObject({ tool: z.string(), reason: z.string() }), 'error'),
  deviceConfigApplied: define('device.config_applied', z.looseObject({ device: z.string(), commands, output: z.string().optional() }), 'device'),
  deviceConfigFailed: define('device.config_failed', z.looseObject({ device: z.string(), commands, reached: z.boolean() }), 'device'),
  deviceConfigInterrupted: define('device.config_interrupted', z.looseObject({}), 'device'),
  deviceChangePending: define('device.change_pending', z.looseObject({ ...change, deadline: z.string() }), 'device'),
  deviceChangeConfirmed: define('device.change_confirmed', z.looseObject(ended), 'device'),
  deviceChangeRolledBack: define('device.change_rolled_back', z.looseObject(ended), 'device'),
  deviceChangeError: define('device.change_error', z.looseObject({}), 'device'),
  /** A plan's device the relay sent lines to, on which none of them is (the server never took them, or nothing was sent). */
  deviceChangeNotApplied: define('device.change_not_applied', z.looseObject({ ...change, reason: z.string() }), 'device'),
  devicePostCheck: define('device.post_check', z.looseObject({}), 'device'),
  deviceQuarantined: define('device.quarantined', z.looseObject({ device: z.string(), reason: z.string() }), 'device'),
  deviceCleared: define('device.cleared', z.looseObject({ device: z.string(), by: z.string() }), 'device'),
  changeFingerprintChecked: define('change.fingerprint_checked', z.looseObject({ ...fingerprint, match: z.literal(true).nullable() }), 'runtime'),
  planApplied: define('plan.applied', z.looseObject({ request_id: z.string(), devices: z.array(z.string()) }), 'device'),
  planConfirmed: define('plan.confirmed', z.looseObject({ request_id: z.string(), devices: z.array(z.string()) }), 'device'),
  planRolledBack: define('plan.rolled_back', z.looseObject({ request_id: z.string(), devices: z.array(z.string()) }), 'device'),
  planFailed: define('plan.failed', z.looseObject({ request_id: z.string(), devices: z.array(z.string()) }), 'device'),
  changeFingerprintMismatch: define('change.fingerprint_mismatch', z.looseObject({ ...fingerprint, changed: z.array(z.string()), changed_total: z.number() }), 'runtime'),
};
