import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ChangeStatus } from '../../core/changes/device-contract';
import { errorText } from '../../core/error-body';

/** What the server must know to put a device back after a crash: written before the first line is sent. */
export const JournalEntry = z.object({
  change_id: z.string().regex(/^[\w-]+$/),
  device: z.string(),
  /** `show running-config` read just before the change. */
  before: z.string(),
  lines: z.array(z.string()),
  deadline: z.string(),
});
export type JournalEntry = z.infer<typeof JournalEntry>;

/** A decided change: its status and when it was decided (the time a refusal to confirm names). */
export const ChangeOutcome = z.object({ status: ChangeStatus, at: z.string() });
export type ChangeOutcome = z.infer<typeof ChangeOutcome>;

/** A journal file that cannot be read: reported, never thrown, so one bad file cannot keep the server down. */
export interface BrokenEntry {
  file: string;
  error: string;
}

const PENDING = /^pending-([\w-]+)\.json$/;
const ID = /^[\w-]+$/;

/**
 * The device server's change journal on disk: one `pending-<id>.json` per change not yet decided and
 * one `outcome-<id>.json` per decided one. Every file is written whole to a temporary name, fsynced,
 * renamed into place and the folder fsynced, so a kill -9 at any point leaves either the old file or
 * the complete new one, never a torn one under the real name.
 */
export class ChangeJournal {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  private write(name: string, value: unknown): void {
    const tmp = join(this.dir, `.${name}.${process.pid}.tmp`);
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(this.dir, name));
    this.syncDir();
  }

  /** The rename (or unlink) itself is durable only once the folder is. */
  private syncDir(): void {
    const fd = openSync(this.dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  writePending(entry: JournalEntry): void {
    this.write(`pending-${JournalEntry.parse(entry).change_id}.json`, entry);
  }

  removePending(changeId: string): void {
    if (!ID.test(changeId)) return;
    rmSync(join(this.dir, `pending-${changeId}.json`), { force: true });
    this.syncDir();
  }

  /** Every change still pending on disk, and the files that could not be read (with why). */
  pending(): { entries: JournalEntry[]; broken: BrokenEntry[] } {
    const entries: JournalEntry[] = [];
    const broken: BrokenEntry[] = [];
    for (const name of readdirSync(this.dir).sort()) {
      if (!PENDING.test(name)) continue;
      const file = join(this.dir, name);
      try {
        entries.push(JournalEntry.parse(JSON.parse(readFileSync(file, 'utf8'))));
      } catch (error) {
        const why = error instanceof z.ZodError ? error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') : errorText(error);
        broken.push({ file, error: `journal entry ${file} cannot be read (${why}): the device it names must be checked by hand` });
      }
    }
    return { entries, broken };
  }

  writeOutcome(outcome: ChangeOutcome): void {
    this.write(`outcome-${outcome.status.change_id}.json`, ChangeOutcome.parse(outcome));
  }

  /** A decided change's outcome, or undefined when none is recorded (or the id could not be one). */
  outcome(changeId: string): ChangeOutcome | undefined {
    if (!ID.test(changeId)) return undefined;
    try {
      return ChangeOutcome.parse(JSON.parse(readFileSync(join(this.dir, `outcome-${changeId}.json`), 'utf8')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}
