import type { Logger } from 'pino';
import { checkReadOnlyCommand } from '../../runbooks/read-only-command';
import { changeInSession, changeWithSnapshot, lineAt, restoreConfig } from './cli-change';
import { DeviceError, NOTHING_SENT_KINDS } from './errors';
import { deviceKey, type DeviceEntry, type Inventory } from './inventory';
import { NetconfDevice } from './netconf/device';
import { grammarProblem, PLATFORM, type Platform } from './platforms';
import { ChangeJournal } from './pending-changes';
import { ProvisionalChanges } from './provisional';
import { previewOn } from './preview';
import type { ConfigPreview } from '../../runbooks/config-preview';
import { ShellSession } from './shell-session';
import { checkFingerprint, SeenConfigs } from './config-fingerprint';
import { normalisedConfigLines } from '../../runbooks/config-fingerprint';

/** Lines the server sends itself around a change, or that leave the CLI: a change that contains them would break out of it. */
const CONTROL_LINES = /^(configure(\s+\S+)*|conf(\s+t)?|commit|abort|quit|logout|write(\s+.*)?|copy\s+.*|reload.*|do\s+.*)$/i;
const LINE_BREAKERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
/** How long a timed-out command may take to give the session back after Ctrl-C (at most the command's own timeout). */
export const INTERRUPT_WAIT_MS = 5_000;

export interface DeviceServiceOptions {
  /** Overrides INTERRUPT_WAIT_MS (and its cap). */
  interruptWaitMs?: number;
  /** Where provisional changes are journaled; without it they do not survive a restart of the server. */
  stateDir?: string;
  /** Runs before each line of a CLI change is sent (index from 0): a test breaks the session at a chosen line with it. */
  beforeLine?(device: string, index: number): void | Promise<void>;
}

interface DeviceSlot {
  entry: DeviceEntry;
  platform: Platform;
  session?: ShellSession;
  /** A `platform: netconf` device: its NETCONF session and pending confirmed commit (no CLI session). */
  netconf?: NetconfDevice;
  /** The tail of this device's queue: calls run one after another, never interleaved. */
  tail: Promise<unknown>;
}

/**
 * Runs the device tools on real devices over SSH: one reused session per device, one call at a time
 * per device, a fresh session after a dropped one, and all-or-nothing configuration changes.
 */
export class DeviceService {
  /** By `deviceKey`: a caller's `r1 ` reaches the inventory's R1, and only R1 (the inventory refuses two names equal so). */
  private readonly slots = new Map<string, DeviceSlot>();
  /** Provisional changes: configProvisional, confirm, rollback, status (provisional.ts). */
  readonly changes: ProvisionalChanges;
  /** The configurations previews read, so a change refused for a changed device can say what changed. */
  private readonly seen = new SeenConfigs();

  constructor(
    private readonly inventory: Inventory,
    private readonly logger?: Logger,
    private readonly options: DeviceServiceOptions = {},
  ) {
    for (const entry of inventory.devices.values()) {
      // parseInventory refuses such a pair with their lines; an inventory built in code must not merge two devices either.
      if (this.slots.has(deviceKey(entry.name))) throw new Error(`two inventory devices are named ${entry.name} ignoring case`);
      const netconf = entry.platform === 'netconf' ? new NetconfDevice(entry, inventory.knownHostsPath, logger, this.seen) : undefined;
      this.slots.set(deviceKey(entry.name), { entry, platform: PLATFORM[entry.platform], netconf, tail: Promise.resolve() });
    }
    this.changes = new ProvisionalChanges(this, options.stateDir ? new ChangeJournal(options.stateDir) : undefined, logger);
  }

  devices(): Array<{ name: string; platform: string; host: string; port: number }> {
    return [...this.slots.values()].map((s) => ({ name: s.entry.name, platform: s.entry.platform, host: s.entry.host, port: s.entry.port }));
  }

  /** Resolves a caller's name to the inventory's device; an unknown name fails here, before any connection. */
  private slot(device: string): DeviceSlot {
    const slot = this.slots.get(deviceKey(device));
    if (!slot) throw new DeviceError('unknown_device', `unknown device ${JSON.stringify(device.slice(0, 100))}: the inventory has ${[...this.slots.values()].map((s) => s.entry.name).join(', ')}`);
    return slot;
  }

  private exclusive<T>(slot: DeviceSlot, work: () => Promise<T>): Promise<T> {
    const run = slot.tail.then(work, work);
    slot.tail = run.catch(() => {});
    return run;
  }

  private async session(slot: DeviceSlot): Promise<ShellSession> {
    if (slot.session && !slot.session.closed) return slot.session;
    slot.session = undefined;
    slot.session = await ShellSession.open(slot.entry, this.inventory.knownHostsPath, slot.platform);
    this.logger?.info({ device: slot.entry.name }, 'device session opened');
    return slot.session;
  }

  async exec(given: string, command: string): Promise<string> {
    const slot = this.slot(given);
    const device = slot.entry.name;
    const readOnly = checkReadOnlyCommand(command);
    if (!readOnly.ok) throw new DeviceError('not_in_grammar', `${device}: refused "${command}": ${readOnly.reason}`);
    const problem = grammarProblem(slot.platform, command);
    if (problem) throw new DeviceError('not_in_grammar', `${device}: "${command}" is not in ${slot.platform.name}'s grammar: ${problem}`);
    const netconf = slot.netconf;
    if (netconf) return this.exclusive(slot, () => netconf.show(command));
    return this.exclusive(slot, async () => {
      const output = await this.show(slot, command).catch((error: unknown) => {
        // A show command is safe to repeat: one retry on a fresh session after a drop.
        if (!(error instanceof DeviceError) || error.kind !== 'session_lost') throw error;
        slot.session = undefined;
        return this.show(slot, command);
      });
      const bad = slot.platform.syntaxError.exec(output);
      if (bad) throw new DeviceError('rejected', `${device} did not accept "${command}": ${lineAt(output, bad.index)}`, true);
      return output;
    });
  }

  /** One show command; one that times out is interrupted on the device, and its session kept only if it answers again. */
  private async show(slot: DeviceSlot, command: string): Promise<string> {
    const session = await this.session(slot);
    try {
      return await session.send(command);
    } catch (error) {
      if (!(error instanceof DeviceError) || error.kind !== 'timeout') throw error;
      const device = slot.entry.name;
      this.logger?.warn({ device, command }, 'command timed out: interrupting it on the device');
      const wait = this.options.interruptWaitMs ?? Math.min(INTERRUPT_WAIT_MS, slot.entry.command_timeout_ms);
      const kept = await session.interrupt(wait);
      if (!kept) this.discard(slot);
      this.logger?.warn({ device, kept }, kept ? 'interrupted command: the session answered again' : 'interrupted command: no answer, session replaced');
      throw new DeviceError(
        'timeout',
        kept
          ? `${error.message}; it was interrupted on the device and the session answered again`
          : `${error.message}; the session was closed and the next call opens a new one`,
        true,
      );
    }
  }

  /** `expectSha256`: the configuration fingerprint the change was previewed on; nothing is sent when the device's differs. */
  async config(name: string, given: string[], expectSha256?: string): Promise<string> {
    const slot = this.slot(name);
    // NETCONF: the lines are one XML <config> element, sent as approved (netconf/fragment.ts); the change
    // is a confirmed commit that stays provisional until confirmCommit or cancelCommit (netconf/device.ts).
    const netconf = slot.netconf;
    if (netconf) return this.exclusive(slot, () => netconf.change(given, undefined, expectSha256));
    const lines = checkLines(slot.entry.name, given);
    return this.exclusive(slot, () => this.applyLines(slot, lines, undefined, expectSha256));
  }

  /**
   * Applies checked lines on a CLI device (call inside `run`). `journal` gets the running configuration
   * read before the change and runs before the first line is sent, so a record of it exists first.
   */
  private async applyLines(slot: DeviceSlot, lines: string[], journal?: (before: string) => void, expectSha256?: string): Promise<string> {
    const device = slot.entry.name;
    // Failing here (unreachable, auth_failed, host_key_*), nothing was sent: the error says so by its kind.
    const session = await this.session(slot);
    const beforeLine = this.options.beforeLine;
    const target = { name: device, platform: slot.platform, logger: this.logger, reopen: () => (this.discard(slot), this.session(slot)), ...(beforeLine ? { beforeLine: (i: number) => beforeLine(device, i) } : {}) };
    try {
      const before = slot.platform.rollback === 'config-session' && !journal && !expectSha256 ? '' : await session.send('show running-config');
      // The one read the change makes anyway: the device must still be as previewed, else nothing is sent.
      if (expectSha256) checkFingerprint(device, expectSha256, normalisedConfigLines(before), this.seen);
      journal?.(before);
      return await (slot.platform.rollback === 'config-session' ? changeInSession(target, session, lines) : changeWithSnapshot(target, session, lines, before));
    } catch (error) {
      if (error instanceof DeviceError && error.kind === 'fingerprint_mismatch') throw error;
      // Mid-change the state of a session that timed out is unknown (a rollback may have timed out too).
      if (error instanceof DeviceError && error.kind === 'timeout') this.discard(slot);
      throw begun(device, error);
    }
  }

  /** What the lines would change on the device, without changing it (preview.ts). */
  preview(name: string, given: string[]): Promise<ConfigPreview> {
    const slot = this.slot(name);
    return previewOn(
      {
        device: slot.entry.name,
        platform: slot.platform,
        netconf: slot.netconf,
        knownHostsPath: this.inventory.knownHostsPath,
        checkLines: (lines) => checkLines(slot.entry.name, lines),
        running: async () => {
          const text = await this.exec(name, 'show running-config');
          this.seen.remember(slot.entry.name, normalisedConfigLines(text));
          return text;
        },
        remember: (lines) => this.seen.remember(slot.entry.name, lines),
        show: (command) => this.exec(name, command),
        exclusive: (work) => this.exclusive(slot, work),
      },
      given,
    );
  }

  /** The inventory's name for a caller's device, and its NETCONF side if it has one (unknown_device otherwise). */
  resolve(name: string): { device: string; netconf?: NetconfDevice } {
    const slot = this.slot(name);
    return { device: slot.entry.name, netconf: slot.netconf };
  }

  /** Runs `work` in the device's queue: after every call before it, before every call after it. */
  run<T>(name: string, work: () => Promise<T>): Promise<T> {
    return this.exclusive(this.slot(name), work);
  }

  /** A provisional change's apply (inside `run`): checked lines, with the journal written before the first. */
  applyProvisional(name: string, given: string[], journal: (before: string) => void, expectSha256?: string): Promise<string> {
    const slot = this.slot(name);
    return this.applyLines(slot, checkLines(slot.entry.name, given), journal, expectSha256);
  }

  /** Puts `before` back (inside `run`), on a fresh session if the last one dropped: what still differs. */
  async restoreOn(name: string, before: string): Promise<string[]> {
    const slot = this.slot(name);
    try {
      return await restoreConfig(await this.session(slot), before);
    } catch (error) {
      if (error instanceof DeviceError && (error.kind === 'timeout' || error.kind === 'session_lost')) this.discard(slot);
      throw error;
    }
  }

  /** Calls `fn` once if the device's current session drops (not when the server closes it). */
  onSessionLost(name: string, fn: () => void): void {
    this.slot(name).session?.onLost(fn);
  }

  /** The NETCONF device behind `name`, or a not_in_grammar error for a CLI device (they commit at once). */
  private netconfSlot(name: string): { slot: DeviceSlot; netconf: NetconfDevice } {
    const slot = this.slot(name);
    if (!slot.netconf) throw new DeviceError('not_in_grammar', `${slot.entry.name} is a ${slot.entry.platform} device: only netconf devices have confirmed commits`);
    return { slot, netconf: slot.netconf };
  }

  /** Keeps a netconf device's provisional change (the confirming commit), then reads it back. */
  confirmCommit(name: string): Promise<string> {
    const { slot, netconf } = this.netconfSlot(name);
    return this.exclusive(slot, () => netconf.confirm());
  }

  /** Reverts a netconf device's provisional change now (cancel-commit), then compares running with before the change. */
  cancelCommit(name: string): Promise<string> {
    const { slot, netconf } = this.netconfSlot(name);
    return this.exclusive(slot, () => netconf.cancel());
  }

  /** When a netconf device's provisional change reverts by itself unless confirmed, or undefined when none is waiting. */
  pendingCommit(name: string): { deadline: Date; timeoutS: number } | undefined {
    const p = this.netconfSlot(name).netconf.pending;
    return p && !p.session.closed ? { deadline: new Date(p.deadline), timeoutS: p.timeoutS } : undefined;
  }

  /** A session whose state is unknown (a command timed out, the connection dropped) is never reused. */
  private discard(slot: DeviceSlot): void {
    slot.session?.close();
    slot.session = undefined;
  }

  async close(): Promise<void> {
    await this.changes.close();
    for (const slot of this.slots.values()) {
      await slot.tail.catch(() => {});
      // A netconf change still waiting for confirm is reverted by the device when its session ends.
      await slot.netconf?.close();
      slot.session?.close();
      slot.session = undefined;
    }
  }

  /** Drops a device's session as if the network had (tests and `--reconnect` use it). */
  dropSession(device: string): void {
    const slot = this.slot(device);
    slot.netconf?.drop();
    slot.session?.close();
  }
}

/**
 * A failure once a change has begun: lines may be on the device, so it must never read as "nothing was
 * sent" (a reconnect for the rollback can fail as unreachable or auth_failed, long after lines went out).
 */
function begun(device: string, error: unknown): unknown {
  if (!(error instanceof DeviceError)) return error;
  if (!NOTHING_SENT_KINDS.has(error.kind)) return error.reached ? error : new DeviceError(error.kind, error.message, true, { restored: error.failure.restored, detail: error.failure.detail });
  return new DeviceError('session_lost', `${device}: the change had begun when the session failed (${error.message}); lines may have been applied: check the device`, true);
}

/** The lines of a CLI change as the server will send them, or not_in_grammar before anything is sent. */
function checkLines(device: string, given: string[]): string[] {
  // A closing `end` (as runbooks write it) is the server's own; anywhere else it would leave configuration mode.
  const lines = given.length > 1 && given[given.length - 1]!.trim() === 'end' ? given.slice(0, -1) : given;
  if (lines.some((l) => l.trim() === 'end')) throw new DeviceError('not_in_grammar', `${device}: "end" may only close the change, as its last line`);
  if (lines.length === 0) throw new DeviceError('not_in_grammar', `${device}: no configuration lines`);
  for (const line of lines) {
    if (LINE_BREAKERS.test(line) || !line.trim()) throw new DeviceError('not_in_grammar', `${device}: each line must be one non-empty line without control characters`);
    if (CONTROL_LINES.test(line.trim())) throw new DeviceError('not_in_grammar', `${device}: "${line.trim()}" is not a configuration line (the server enters and leaves configuration mode itself)`);
  }
  return lines;
}
