import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PREFIX = 'fault-relay-runtime-';

export interface RuntimeTmpdir {
  readonly path: string;
  /** Removes the folder and everything in it. Idempotent, never throws. */
  remove(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A temp folder of the runtime's own. opencode's Bun binary unpacks a 5.5 MB native library into
 * TMPDIR on every start and never removes it: a tray app that restarts its runtime, or a test
 * suite that starts dozens, would fill /tmp with them. Folders left by a relay that was killed
 * (its pid is in the name and no longer alive) are swept on the next start.
 */
export function createRuntimeTmpdir(base = os.tmpdir()): RuntimeTmpdir {
  for (const name of safeList(base)) {
    const pid = Number(/^fault-relay-runtime-(\d+)-/.exec(name)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) rmSync(path.join(base, name), { recursive: true, force: true });
  }
  const dir = mkdtempSync(path.join(base, `${PREFIX}${process.pid}-`));
  return {
    path: dir,
    remove: () => {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // a file still open on an odd filesystem: the next start sweeps it
      }
    },
  };
}

function safeList(base: string): string[] {
  try {
    return readdirSync(base).filter((name) => name.startsWith(PREFIX));
  } catch {
    return [];
  }
}
