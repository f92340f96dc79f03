import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { describeDifference, restoreCommands } from './config-diff';
import { DeviceError } from './errors';
import type { Platform } from './platforms';
import type { ShellSession } from './shell-session';

/** What a change on a CLI session needs from its device: its name, dialect, and a fresh session after a break. */
export interface CliTarget {
  name: string;
  platform: Platform;
  /** Drops the broken session and opens a new one (for the rollback after a break mid-change). */
  reopen(): Promise<ShellSession>;
  logger?: Logger;
  /** Runs before line `index` is sent (DeviceServiceOptions.beforeLine). */
  beforeLine?(index: number): void | Promise<void>;
}

/** EOS: a configuration session is committed only whole. */
export async function changeInSession(t: CliTarget, s: ShellSession, lines: string[]): Promise<string> {
  const name = `fault-relay-${randomBytes(3).toString('hex')}`;
  await s.send(`configure session ${name}`);
  for (const [i, line] of lines.entries()) {
    const out = await s.send(line);
    const bad = t.platform.configError.exec(out);
    if (bad) {
      await s.send('abort');
      throw new DeviceError('rejected', `${t.name} refused line ${i + 1} "${line}": ${lineAt(out, bad.index)}; the configuration session was aborted, nothing was applied`, true, { restored: true });
    }
  }
  const out = await s.send('commit');
  const bad = t.platform.configError.exec(out);
  if (bad) throw new DeviceError('rejected', `${t.name} refused the commit: ${lineAt(out, bad.index)}; nothing was applied`, true, { restored: true });
  return `${t.name}: ${lines.length} line(s) applied (configuration session committed)`;
}

/**
 * FRR and the IOS family: apply on top of `before` (the running configuration read just before);
 * undo and verify if a line fails or the session breaks.
 */
export async function changeWithSnapshot(t: CliTarget, s: ShellSession, lines: string[], before: string): Promise<string> {
  const name = t.name;
  let failed: { index: number; line: string; why: string } | undefined;
  const outputs: string[] = [];
  try {
    await s.send('configure terminal');
    for (const [i, line] of lines.entries()) {
      await t.beforeLine?.(i);
      const out = await s.send(line);
      const bad = t.platform.configError.exec(out);
      if (bad) {
        failed = { index: i, line, why: lineAt(out, bad.index) };
        break;
      }
      if (out.trim()) outputs.push(out.trim());
      if (s.prompt.mode === '') {
        failed = { index: i, line, why: 'the line left configuration mode' };
        break;
      }
    }
    await s.send('end');
  } catch (error) {
    // The session broke mid-change (timeout, drop): some lines may have applied. Restore on a fresh session.
    if (!(error instanceof DeviceError)) throw error;
    const fresh = await t.reopen();
    const head = `${name}: the change was interrupted (${error.message})`;
    const left = await restoreConfig(fresh, before);
    throw new DeviceError(error.kind, left.length === 0 ? `${head}. Rolled back on a new session: the running configuration matches the one before the change.` : `${head}. ROLLBACK INCOMPLETE: ${left.join('; ')}`, true, { restored: left.length === 0 });
  }
  if (!failed) return [`${name}: ${lines.length} line(s) applied`, ...outputs].join('\n');

  const left = await restoreConfig(s, before);
  const head = `${name} refused line ${failed.index + 1} of ${lines.length} "${failed.line}": ${failed.why}`;
  if (left.length === 0) {
    t.logger?.warn({ device: name, line: failed.index + 1 }, 'config change refused; rolled back and verified');
    throw new DeviceError('rejected', `${head}. Rolled back: the running configuration was read back and matches the one before the change.`, true, { restored: true });
  }
  t.logger?.error({ device: name, left }, 'config rollback could not be verified');
  throw new DeviceError('rejected', `${head}. ROLLBACK INCOMPLETE: the running configuration still differs from before: ${left.join('; ')}`, true, { restored: false });
}

/** Applies the difference back to `before`, then reads the running configuration again: what still differs. */
export async function restoreConfig(s: ShellSession, before: string): Promise<string[]> {
  const during = await s.send('show running-config');
  for (const group of restoreCommands(before, during)) {
    await s.send('configure terminal');
    for (const line of group) await s.send(line);
    await s.send('end');
  }
  return describeDifference(before, await s.send('show running-config'));
}

export function lineAt(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index) + 1;
  const end = text.indexOf('\n', index);
  return text.slice(start, end === -1 ? undefined : end).trim();
}
