import type { DeviceErrorKind } from '../../src/core/changes/device-failure';

/** What the lab refuses with: the text a router would print, and the contract's kind (src/core/changes/device-failure.ts). */
export interface LabRefusal {
  ok: false;
  error: string;
  kind: DeviceErrorKind;
  /** A fingerprint mismatch's detail. */
  detail?: Record<string, unknown>;
}
export const refusal = (kind: DeviceErrorKind, error: string, detail?: Record<string, unknown>): LabRefusal => ({ ok: false, error, kind, ...(detail ? { detail } : {}) });
/** A lab answer that refused (a device object never has `ok`). */
export const isRefusal = (x: object): x is LabRefusal => 'ok' in x && x.ok === false;


/** A lab operation asked of the wrong thing (an unknown device, neighbor or interface): the admin API answers it as a 400. */
export class LabError extends Error {
  override readonly name = 'LabError';
}
