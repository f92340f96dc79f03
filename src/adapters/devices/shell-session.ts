import { randomBytes } from 'node:crypto';
import type { Client, ClientChannel } from 'ssh2';
import { DeviceError } from './errors';
import type { DeviceEntry } from './inventory';
import type { Platform } from './platforms';
import { connectSsh } from './ssh-connect';
import { errorText } from '../../core/error-body';

/** ANSI escapes and carriage returns that a pty adds around output. */
const NOISE = /\u001b\[[0-9;?]*[A-Za-z]|\r/g;
/** `R1#`, `R1>`, `R1(config)#`, `R1(config-router)#`, `switch(config-s-fr1)#` at the end of the buffer. */
const PROMPT = /(?:^|\n)([A-Za-z0-9][\w.:/-]*)(\([\w.:/ -]+\))?([#>]) ?$/;
/** Ctrl-C: IOS, NX-OS and EOS stop the running command; FRR's vtysh only redraws its prompt (it keeps waiting for the daemon). */
const INTERRUPT = '\u0003';

export interface Prompt {
  host: string;
  /** The configuration mode in parentheses, e.g. `config-router`, or '' in exec mode. */
  mode: string;
}

/**
 * One interactive CLI session on a device over SSH (a pty, as an engineer's terminal): sends a line,
 * collects output until the device's own prompt comes back, and says which mode the prompt shows.
 */
export class ShellSession {
  private buffer = '';
  private waiter: (() => void) | undefined;
  private closedWith: DeviceError | undefined;
  private hostname = '';
  /** Told once when the connection drops by itself (never when this side closes it). */
  private lostListeners: Array<() => void> = [];
  prompt: Prompt = { host: '', mode: '' };

  private constructor(
    private readonly client: Client,
    private readonly channel: ClientChannel,
    readonly device: DeviceEntry,
    private readonly platform: Platform,
  ) {
    channel.on('data', (chunk: Buffer) => this.feed(chunk.toString('utf8')));
    channel.stderr.on('data', (chunk: Buffer) => this.feed(chunk.toString('utf8')));
    const lost = (error: DeviceError) => {
      if (this.closedWith) return;
      this.fail(error);
      for (const fn of this.lostListeners.splice(0)) fn();
    };
    channel.on('close', () => lost(new DeviceError('session_lost', `${device.name}: the SSH session closed`, true)));
    client.on('close', () => lost(new DeviceError('session_lost', `${device.name}: the SSH session closed`, true)));
    client.on('error', (e: Error) => lost(new DeviceError('session_lost', `${device.name}: SSH session error: ${e.message}`, true)));
  }

  /** Calls `fn` once if the connection drops by itself; a session closed here (close()) never calls it. */
  onLost(fn: () => void): void {
    if (!this.closedWith) this.lostListeners.push(fn);
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  static async open(device: DeviceEntry, knownHostsPath: string, platform: Platform, connectTimeoutMs = 10_000): Promise<ShellSession> {
    const client = await connectSsh(device, knownHostsPath, connectTimeoutMs);

    const channel = await new Promise<ClientChannel>((resolve, reject) =>
      client.shell({ term: 'vt100', cols: 511, rows: 200 }, (error, stream) => (error ? reject(error) : resolve(stream))),
    ).catch((error: unknown) => {
      client.end();
      throw new DeviceError('session_lost', `${device.name}: no interactive shell: ${errorText(error)}`);
    });
    const session = new ShellSession(client, channel, device, platform);
    try {
      await session.waitForPrompt(device.command_timeout_ms, 'the login prompt');
      for (const line of platform.sessionSetup) await session.send(line);
    } catch (error) {
      // A session that never became usable is not left open on the device.
      session.close();
      throw error;
    }
    return session;
  }

  private feed(text: string): void {
    this.buffer += text.replace(NOISE, '');
    this.waiter?.();
  }

  private fail(error: DeviceError): void {
    if (this.closedWith) return;
    this.closedWith = error;
    this.waiter?.();
  }

  private matchPrompt(): Prompt | undefined {
    const m = PROMPT.exec(this.buffer);
    if (!m) return undefined;
    // Once the device has said its name, only its own prompt ends a command's output.
    if (this.hostname && m[1] !== this.hostname) return undefined;
    return { host: m[1]!, mode: m[2]?.slice(1, -1) ?? '' };
  }

  /** Output up to the device's prompt; with `after`, only a prompt that follows a match of it counts. */
  private async waitForPrompt(timeoutMs: number, what: string, after?: RegExp): Promise<string> {
    // The timer itself says time is up: a Date.now() comparison can fall a millisecond short when the
    // timer fires, and a silent device would then never wake the loop again.
    let expired = false;
    const deadline = setTimeout(() => {
      expired = true;
      this.waiter?.();
    }, timeoutMs);
    try {
      for (;;) {
        const prompt = this.matchPrompt();
        if (prompt && (!after || after.test(this.buffer))) {
          this.hostname ||= prompt.host;
          this.prompt = prompt;
          const text = this.buffer.slice(0, this.buffer.length - (PROMPT.exec(this.buffer)?.[0].replace(/^\n/, '').length ?? 0));
          this.buffer = '';
          return text;
        }
        if (this.closedWith) throw this.closedWith;
        if (expired) {
          throw new DeviceError('timeout', `${this.device.name}: no prompt after ${what} within ${timeoutMs / 1000} s`, true);
        }
        await new Promise<void>((resolve) => (this.waiter = resolve));
        this.waiter = undefined;
      }
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Sends one line and returns its output (without the echoed line and the prompt). */
  async send(line: string, timeoutMs = this.device.command_timeout_ms): Promise<string> {
    if (this.closedWith) throw this.closedWith;
    this.buffer = '';
    this.channel.write(`${line}\n`);
    const text = await this.waitForPrompt(timeoutMs, `"${line}"`);
    const lines = text.split('\n');
    // The pty echoes what was typed on the first line.
    if (lines[0]?.trimEnd().endsWith(line.trim())) lines.shift();
    return lines.join('\n').replace(/\n+$/, '');
  }

  /**
   * After `send` timed out: interrupts the command on the device, then checks that the session is back in
   * step, within `waitMs`. True: the late output is discarded and the session can be used again. False:
   * the session is closed (which also ends the device's CLI process for it: the hang-up of its terminal).
   */
  async interrupt(waitMs: number): Promise<boolean> {
    if (this.closedWith || !this.channel.writable) return false;
    this.channel.write(INTERRUPT);
    // A prompt alone proves nothing (vtysh prints one on Ctrl-C while still waiting): only the answer to a
    // line sent after the interrupt shows that everything before it has been read.
    const probe = this.platform.syncProbe?.(`fault-relay-sync-${randomBytes(4).toString('hex')}`);
    if (!probe) {
      this.close();
      return false;
    }
    this.channel.write(`${probe.line}\n`);
    try {
      await this.waitForPrompt(waitMs, 'the interrupt', probe.answer);
      return true;
    } catch {
      this.close();
      return false;
    }
  }

  close(): void {
    this.lostListeners = [];
    const open = !this.closedWith && this.channel.writable;
    this.fail(new DeviceError('session_lost', `${this.device.name}: session closed`, false));
    // Stop whatever still runs before hanging up; a CLI at its prompt just prints a new one.
    if (open) this.channel.write(INTERRUPT);
    this.channel.end();
    this.client.end();
  }
}
