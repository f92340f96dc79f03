import type { Logger } from 'pino';
import type { ConfigPreview } from '../../runbooks/config-preview';
import { normalisedConfigLines } from '../../runbooks/config-fingerprint';
import { changeInSession, changeWithSnapshot, lineAt, restoreConfig } from './cli-change';
import { checkFingerprint, type SeenConfigs } from './config-fingerprint';
import type { ApplyOptions, DeviceDriver } from './driver';
import { DeviceError, NOTHING_SENT_KINDS } from './errors';
import type { DeviceEntry } from './inventory';
import type { Platform } from './platforms';
import { previewOn } from './preview';
import { ShellSession } from './shell-session';

/** Lines the server sends itself around a change, or that leave the CLI: a change that contains them would break out of it. */
const CONTROL_LINES = /^(configure(\s+\S+)*|conf(\s+t)?|commit|abort|quit|logout|write(\s+.*)?|copy\s+.*|reload.*|do\s+.*)$/i;
const LINE_BREAKERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
/** How long a timed-out command may take to give the session back after Ctrl-C (at most the command's own timeout). */
export const INTERRUPT_WAIT_MS = 5_000;

export interface CliDriverOptions {
  knownHostsPath: string;
  seen: SeenConfigs;
  logger?: Logger;
  /** Overrides INTERRUPT_WAIT_MS (and its cap). */
  interruptWaitMs?: number;
  /** Runs before each line of a change is sent (DeviceServiceOptions.beforeLine). */
  beforeLine?(device: string, index: number): void | Promise<void>;
}

/**
 * A CLI device over SSH, in its platform's dialect (platforms.ts: one per dialect): one reused
 * session, a fresh one after a drop, and all-or-nothing changes the server puts back and reads back
 * itself (the device has no confirmed commit the server uses).
 */
export class CliDriver implements DeviceDriver {
  readonly revertsItself = false;
  private session: ShellSession | undefined;

  constructor(
    private readonly entry: DeviceEntry,
    private readonly platform: Platform,
    private readonly opts: CliDriverOptions,
  ) {}

  private get name(): string {
    return this.entry.name;
  }

  private async open(): Promise<ShellSession> {
    if (this.session && !this.session.closed) return this.session;
    this.session = undefined;
    this.session = await ShellSession.open(this.entry, this.opts.knownHostsPath, this.platform);
    this.opts.logger?.info({ device: this.name }, 'device session opened');
    return this.session;
  }

  async exec(command: string): Promise<string> {
    const output = await this.show(command).catch((error: unknown) => {
      // A show command is safe to repeat: one retry on a fresh session after a drop.
      if (!(error instanceof DeviceError) || error.kind !== 'session_lost') throw error;
      this.session = undefined;
      return this.show(command);
    });
    const bad = this.platform.syntaxError.exec(output);
    if (bad) throw new DeviceError('rejected', `${this.name} did not accept "${command}": ${lineAt(output, bad.index)}`, true);
    return output;
  }

  /** One show command; one that times out is interrupted on the device, and its session kept only if it answers again. */
  private async show(command: string): Promise<string> {
    const session = await this.open();
    try {
      return await session.send(command);
    } catch (error) {
      if (!(error instanceof DeviceError) || error.kind !== 'timeout') throw error;
      const device = this.name;
      this.opts.logger?.warn({ device, command }, 'command timed out: interrupting it on the device');
      const wait = this.opts.interruptWaitMs ?? Math.min(INTERRUPT_WAIT_MS, this.entry.command_timeout_ms);
      const kept = await session.interrupt(wait);
      if (!kept) this.discard();
      this.opts.logger?.warn({ device, kept }, kept ? 'interrupted command: the session answered again' : 'interrupted command: no answer, session replaced');
      throw new DeviceError(
        'timeout',
        kept ? `${error.message}; it was interrupted on the device and the session answered again` : `${error.message}; the session was closed and the next call opens a new one`,
        true,
      );
    }
  }

  preview(lines: string[], exclusive: <T>(work: () => Promise<T>) => Promise<T>): Promise<ConfigPreview> {
    return previewOn(
      {
        device: this.name,
        platform: this.platform,
        checkLines: (l) => checkLines(this.name, l),
        running: async () => {
          const text = await exclusive(() => this.exec('show running-config'));
          this.opts.seen.remember(this.name, normalisedConfigLines(text));
          return text;
        },
        show: (command) => exclusive(() => this.exec(command)),
      },
      lines,
    );
  }

  /**
   * Applies checked lines. `journal` gets the running configuration read before the change and runs
   * before the first line is sent, so a record of it exists first.
   */
  async applyProvisional(given: string[], { journal, expectSha256 }: ApplyOptions): Promise<string> {
    const lines = checkLines(this.name, given);
    const device = this.name;
    // Failing here (unreachable, auth_failed, host_key_*), nothing was sent: the error says so by its kind.
    const session = await this.open();
    const beforeLine = this.opts.beforeLine;
    const target = { name: device, platform: this.platform, logger: this.opts.logger, reopen: () => (this.discard(), this.open()), ...(beforeLine ? { beforeLine: (i: number) => beforeLine(device, i) } : {}) };
    try {
      const before = this.platform.rollback === 'config-session' && !journal && !expectSha256 ? '' : await session.send('show running-config');
      // The one read the change makes anyway: the device must still be as previewed, else nothing is sent.
      if (expectSha256) checkFingerprint(device, expectSha256, normalisedConfigLines(before), this.opts.seen);
      journal?.(before);
      return await (this.platform.rollback === 'config-session' ? changeInSession(target, session, lines) : changeWithSnapshot(target, session, lines, before));
    } catch (error) {
      if (error instanceof DeviceError && error.kind === 'fingerprint_mismatch') throw error;
      // Mid-change the state of a session that timed out is unknown (a rollback may have timed out too).
      if (error instanceof DeviceError && error.kind === 'timeout') this.discard();
      throw begun(device, error);
    }
  }

  /** The server keeps the change provisional itself: confirming it is forgetting how to put it back. */
  confirm(): Promise<string> {
    return Promise.resolve(`${this.name}: confirmed: the server forgets the configuration from before`);
  }

  /** Puts `before` back, on a fresh session if the last one dropped, and reads it back. */
  async rollback(before: string): Promise<{ restored: boolean; detail: string }> {
    let left: string[];
    try {
      left = await restoreConfig(await this.open(), before);
    } catch (error) {
      if (error instanceof DeviceError && (error.kind === 'timeout' || error.kind === 'session_lost')) this.discard();
      throw error;
    }
    return left.length
      ? { restored: false, detail: `the running configuration still differs from before: ${left.join('; ')}` }
      : { restored: true, detail: 'running configuration read back: it matches the one before the change' };
  }

  pending(): undefined {
    return undefined;
  }

  onSessionLost(fn: () => void): void {
    this.session?.onLost(fn);
  }

  /** A session whose state is unknown (a command timed out, the connection dropped) is never reused. */
  private discard(): void {
    this.session?.close();
    this.session = undefined;
  }

  drop(): void {
    this.session?.close();
  }

  async close(): Promise<void> {
    this.discard();
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
export function checkLines(device: string, given: string[]): string[] {
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
