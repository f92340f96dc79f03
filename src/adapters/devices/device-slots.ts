import type { Logger } from 'pino';
import { CliDriver } from './cli-driver';
import type { SeenConfigs } from './config-fingerprint';
import type { DeviceDriver } from './driver';
import { DeviceError } from './errors';
import { deviceKey, type DeviceEntry, type Inventory } from './inventory';
import { NetconfDevice } from './netconf/device';
import { NetconfDriver } from './netconf-driver';
import { PLATFORM, type Platform } from './platforms';

export interface DeviceSlot {
  entry: DeviceEntry;
  platform: Platform;
  /** Chosen once, from the inventory's platform: everything after that goes through it. */
  driver: DeviceDriver;
  /** The tail of this device's queue: calls run one after another, never interleaved. */
  tail: Promise<unknown>;
}

export interface DriverSettings {
  logger?: Logger;
  seen: SeenConfigs;
  interruptWaitMs?: number;
  beforeLine?(device: string, index: number): void | Promise<void>;
}

/** The one place a device's driver is chosen: NETCONF's confirmed commit, or the CLI in its platform's dialect. */
function driverFor(entry: DeviceEntry, knownHostsPath: string, s: DriverSettings): DeviceDriver {
  if (entry.platform === 'netconf') return new NetconfDriver(new NetconfDevice(entry, knownHostsPath, s.logger, s.seen), knownHostsPath, s.seen);
  return new CliDriver(entry, PLATFORM[entry.platform], { knownHostsPath, seen: s.seen, logger: s.logger, interruptWaitMs: s.interruptWaitMs, beforeLine: s.beforeLine });
}

/**
 * The inventory's devices, each with its driver and its queue: what the device service and the
 * provisional changes both work through (neither calls the other for it).
 */
export class DeviceSlots {
  /** By `deviceKey`: a caller's `r1 ` reaches the inventory's R1, and only R1 (the inventory refuses two names equal so). */
  private readonly slots = new Map<string, DeviceSlot>();

  constructor(inventory: Inventory, settings: DriverSettings) {
    for (const entry of inventory.devices.values()) {
      // parseInventory refuses such a pair with their lines; an inventory built in code must not merge two devices either.
      if (this.slots.has(deviceKey(entry.name))) throw new Error(`two inventory devices are named ${entry.name} ignoring case`);
      this.slots.set(deviceKey(entry.name), { entry, platform: PLATFORM[entry.platform], driver: driverFor(entry, inventory.knownHostsPath, settings), tail: Promise.resolve() });
    }
  }

  all(): DeviceSlot[] {
    return [...this.slots.values()];
  }

  /** Resolves a caller's name to the inventory's device; an unknown name fails here, before any connection. */
  slot(device: string): DeviceSlot {
    const slot = this.slots.get(deviceKey(device));
    if (!slot) throw new DeviceError('unknown_device', `unknown device ${JSON.stringify(device.slice(0, 100))}: the inventory has ${this.all().map((s) => s.entry.name).join(', ')}`);
    return slot;
  }

  /** The inventory's name for a caller's device, and its driver. */
  resolve(name: string): { device: string; driver: DeviceDriver } {
    const slot = this.slot(name);
    return { device: slot.entry.name, driver: slot.driver };
  }

  /** Runs `work` in the device's queue: after every call before it, before every call after it. */
  run<T>(name: string, work: () => Promise<T>): Promise<T> {
    const slot = this.slot(name);
    const run = slot.tail.then(work, work);
    slot.tail = run.catch(() => {});
    return run;
  }
}
