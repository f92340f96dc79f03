import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { SleepingClock } from '../../src/core/clock';
import { CONFIRM_WITHIN_S, type ChangeStatus } from '../../src/core/changes/device-contract';
import type { Device, DeviceConfig } from './device';
import { normalisedConfigLines } from '../../src/runbooks/config-fingerprint';
import { checkFingerprint, type SeenConfigs } from '../../src/adapters/devices/config-fingerprint';
import { DeviceError } from '../../src/adapters/devices/errors';
import { labRunningConfig } from './preview';
import { isRefusal, refusal, type LabRefusal } from './refusal';

export type ChangeResult = { ok: true; change: ChangeStatus } | LabRefusal;
export type ProvisionalResult = { ok: true; output: string; change: ChangeStatus } | LabRefusal;

/** What the change book needs from the lab; accessors, because a lab reset replaces its network. */
export interface LabChangeDeps {
  clock: SleepingClock;
  /** The device, or the error a router would print (unknown, unreachable). */
  reach(hostname: string): Device | LabRefusal;
  apply(hostname: string, lines: readonly string[]): { ok: true; output: string } | LabRefusal;
  /** Puts a configuration back on the device (and lets the network react to it). */
  restore(device: Device, config: DeviceConfig): void;
  /** What previews read (preview.ts), for the summary of a fingerprint mismatch. */
  previewed?: SeenConfigs;
  logger?: Logger;
}

interface Pending {
  status: ChangeStatus;
  device: Device;
  before: DeviceConfig;
  cancel: () => void;
}

/**
 * The simulated lab's provisional changes, with the device server's semantics: one pending change
 * per device, rolled back (and compared with the configuration from before) when its deadline passes
 * on the lab's clock or when asked; confirmed only while pending. Nothing persists: a lab restart is
 * a fresh network anyway.
 */
export function createLabChanges(deps: LabChangeDeps) {
  const pendingByDevice = new Map<string, Pending>();
  const decided = new Map<string, { status: ChangeStatus; at: string }>();
  const iso = () => deps.clock.now().toISOString();

  const stateText = (id: string, d: { status: ChangeStatus; at: string }) =>
    d.status.state === 'confirmed'
      ? `% change ${id} was confirmed at ${d.at}: it is final`
      : `% change ${id} was ${d.status.state === 'rolled_back' ? 'rolled back' : 'rolled back but not verified (rollback_failed)'} (${d.status.reason}) at ${d.at}`;

  const rollback = (p: Pending, reason: string): ChangeStatus => {
    p.cancel();
    pendingByDevice.delete(p.device.config.hostname);
    deps.restore(p.device, structuredClone(p.before));
    // Read back: the lab's own configuration compared with the snapshot, as the real server compares running-configs.
    const same = JSON.stringify(p.device.config) === JSON.stringify(p.before);
    const status: ChangeStatus = {
      ...p.status,
      state: same ? 'rolled_back' : 'rollback_failed',
      reason,
      detail: same ? 'running configuration read back: it matches the one before the change' : 'running configuration differs from the one before the change',
    };
    decided.set(status.change_id, { status, at: iso() });
    deps.logger?.info({ device: status.device, change_id: status.change_id, reason }, 'lab provisional change rolled back');
    return status;
  };

  const find = (hostname: string, id: string): { pending?: Pending; decided?: { status: ChangeStatus; at: string }; error?: LabRefusal } => {
    const device = deps.reach(hostname);
    if (isRefusal(device)) return { error: device };
    const p = pendingByDevice.get(device.config.hostname);
    if (p && p.status.change_id === id) return { pending: p };
    const d = decided.get(id);
    if (d && d.status.device === device.config.hostname) return { decided: d };
    return { error: refusal('not_pending', `% change ${id} is unknown on ${device.config.hostname}`) };
  };

  return {
    provisional(hostname: string, lines: readonly string[], confirmWithinS: number, expectSha256?: string): ProvisionalResult {
      if (!Number.isInteger(confirmWithinS) || confirmWithinS < CONFIRM_WITHIN_S.min || confirmWithinS > CONFIRM_WITHIN_S.max) {
        return refusal('not_in_grammar', `% confirm_within_s must be a whole number of seconds from ${CONFIRM_WITHIN_S.min} to ${CONFIRM_WITHIN_S.max}`);
      }
      const device = deps.reach(hostname);
      if (isRefusal(device)) return device;
      const busy = pendingByDevice.get(device.config.hostname);
      if (busy) {
        return refusal('change_pending', `${device.config.hostname}: change ${busy.status.change_id} is pending until ${busy.status.deadline}; confirm or roll it back first (nothing was sent)`);
      }
      try {
        if (expectSha256) checkFingerprint(device.config.hostname, expectSha256, normalisedConfigLines(labRunningConfig(device)), deps.previewed);
      } catch (error) {
        if (!(error instanceof DeviceError)) throw error;
        return refusal(error.kind, error.message, error.detail);
      }
      const before = structuredClone(device.config);
      const applied = deps.apply(hostname, lines);
      if (!applied.ok) return applied;
      const change_id = `chg-${randomBytes(6).toString('hex')}`;
      const status: ChangeStatus = { change_id, device: device.config.hostname, state: 'pending', deadline: new Date(deps.clock.now().getTime() + confirmWithinS * 1000).toISOString() };
      const p: Pending = { status, device, before, cancel: () => {} };
      p.cancel = deps.clock.setTimeout(() => {
        if (pendingByDevice.get(device.config.hostname) === p) rollback(p, 'deadline');
      }, confirmWithinS * 1000).cancel;
      pendingByDevice.set(device.config.hostname, p);
      return { ok: true, output: applied.output, change: { ...status, ...(expectSha256 ? { before_sha256: expectSha256 } : {}) } };
    },

    confirm(hostname: string, id: string): ChangeResult {
      const f = find(hostname, id);
      if (f.error) return f.error;
      if (f.decided) return refusal('not_pending', stateText(id, f.decided));
      const p = f.pending!;
      p.cancel();
      pendingByDevice.delete(p.device.config.hostname);
      const status: ChangeStatus = { ...p.status, state: 'confirmed' };
      decided.set(id, { status, at: iso() });
      return { ok: true, change: status };
    },

    rollback(hostname: string, id: string, reason: string): ChangeResult {
      const f = find(hostname, id);
      if (f.error) return f.error;
      if (f.decided?.status.state === 'confirmed') return refusal('not_pending', stateText(id, f.decided));
      if (f.decided) return { ok: true, change: f.decided.status };
      return { ok: true, change: rollback(f.pending!, reason) };
    },

    status(hostname: string, id: string): ChangeResult {
      const f = find(hostname, id);
      if (f.error) return f.error;
      return { ok: true, change: f.pending?.status ?? f.decided!.status };
    },

    /** A reset network starts with nothing pending; timers of the old one must not fire into it. */
    clear(): void {
      for (const p of pendingByDevice.values()) p.cancel();
      pendingByDevice.clear();
      decided.clear();
    },
  };
}
