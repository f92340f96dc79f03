import type { Logger } from 'pino';
import { checkReadOnlyCommand } from '../../runbooks/read-only-command';
import type { ConfigPreview } from '../../runbooks/config-preview';
import { SeenConfigs } from './config-fingerprint';
import { DeviceSlots } from './device-slots';
import { DeviceError } from './errors';
import type { Inventory } from './inventory';
import { ChangeJournal } from './pending-changes';
import { grammarProblem } from './platforms';
import { ProvisionalChanges } from './provisional';

export interface DeviceServiceOptions {
  /** Overrides how long a timed-out command may take to answer again (cli-driver.ts INTERRUPT_WAIT_MS, and its cap). */
  interruptWaitMs?: number;
  /** Where provisional changes are journaled; without it they do not survive a restart of the server. */
  stateDir?: string;
  /** Runs before each line of a CLI change is sent (index from 0): a test breaks the session at a chosen line with it. */
  beforeLine?(device: string, index: number): void | Promise<void>;
}

/**
 * Runs the device tools on real devices: one driver per device, chosen once from the inventory
 * (device-slots.ts: the CLI in its platform's dialect, or NETCONF), one call at a time per device,
 * and all-or-nothing configuration changes.
 */
export class DeviceService {
  private readonly slots: DeviceSlots;
  /** Provisional changes: apply, confirm, rollback, status (provisional.ts). */
  readonly changes: ProvisionalChanges;
  /** The configurations previews read, so a change refused for a changed device can say what changed. */
  private readonly seen = new SeenConfigs();

  constructor(inventory: Inventory, logger?: Logger, options: DeviceServiceOptions = {}) {
    this.slots = new DeviceSlots(inventory, { logger, seen: this.seen, interruptWaitMs: options.interruptWaitMs, beforeLine: options.beforeLine });
    this.changes = new ProvisionalChanges(this.slots, options.stateDir ? new ChangeJournal(options.stateDir) : undefined, logger);
  }

  devices(): Array<{ name: string; platform: string; host: string; port: number }> {
    return this.slots.all().map((s) => ({ name: s.entry.name, platform: s.entry.platform, host: s.entry.host, port: s.entry.port }));
  }

  /** One read-only command, refused before anything is sent when it is not one or the platform lacks its form. */
  async exec(given: string, command: string): Promise<string> {
    const slot = this.slots.slot(given);
    const device = slot.entry.name;
    const readOnly = checkReadOnlyCommand(command);
    if (!readOnly.ok) throw new DeviceError('not_in_grammar', `${device}: refused "${command}": ${readOnly.reason}`);
    const problem = grammarProblem(slot.platform, command);
    if (problem) throw new DeviceError('not_in_grammar', `${device}: "${command}" is not in ${slot.platform.name}'s grammar: ${problem}`);
    return this.slots.run(device, () => slot.driver.exec(command));
  }

  /**
   * A change at once, all or nothing. `expectSha256`: the configuration fingerprint the change was
   * previewed on; nothing is sent when the device's differs. (NETCONF: a confirmed commit that stays
   * provisional until confirmCommit or cancelCommit.)
   */
  async config(name: string, given: string[], expectSha256?: string): Promise<string> {
    const { device, driver } = this.slots.resolve(name);
    return this.slots.run(device, () => driver.applyProvisional(given, expectSha256 ? { expectSha256 } : {}));
  }

  /** What the lines would change on the device, without changing it. */
  preview(name: string, given: string[]): Promise<ConfigPreview> {
    const { device, driver } = this.slots.resolve(name);
    return driver.preview(given, (work) => this.slots.run(device, work));
  }

  /** The device's own confirmed commit, or not_in_grammar for one whose server keeps the guarantee (they commit at once). */
  private selfReverting(name: string) {
    const slot = this.slots.slot(name);
    if (!slot.driver.revertsItself) throw new DeviceError('not_in_grammar', `${slot.entry.name} is a ${slot.entry.platform} device: only netconf devices have confirmed commits`);
    return { device: slot.entry.name, driver: slot.driver };
  }

  /** Keeps a device's own provisional change (the confirming commit), then reads it back. */
  confirmCommit(name: string): Promise<string> {
    const { device, driver } = this.selfReverting(name);
    return this.slots.run(device, () => driver.confirm());
  }

  /** Reverts a device's own provisional change now, then compares running with before the change. */
  async cancelCommit(name: string): Promise<string> {
    const { device, driver } = this.selfReverting(name);
    return (await this.slots.run(device, () => driver.rollback(''))).detail;
  }

  /** When a device's own provisional change reverts by itself unless confirmed, or undefined when none is waiting. */
  pendingCommit(name: string): { deadline: Date; timeoutS: number } | undefined {
    return this.selfReverting(name).driver.pending();
  }

  async close(): Promise<void> {
    await this.changes.close();
    for (const slot of this.slots.all()) {
      await slot.tail.catch(() => {});
      // A netconf change still waiting for confirm is reverted by the device when its session ends.
      await slot.driver.close();
    }
  }

  /** Drops a device's session as if the network had (tests and `--reconnect` use it). */
  dropSession(device: string): void {
    this.slots.slot(device).driver.drop();
  }
}
