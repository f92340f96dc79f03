import { createHash } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * One device server per change journal: two servers on one folder would each roll back (or re-arm)
 * the other's pending changes and race on the same router. The holder is named in `server.lock`
 * (pid and, on Linux, the process's start time, so a reused pid is not taken for the holder).
 *
 * On Linux the lock proper is an abstract socket named after the folder: the kernel lets one process
 * bind it and frees it when that process dies however it died, so there is no window in which two
 * starters both take over a stale file. Elsewhere the file alone is the lock, created exclusively; a
 * file whose process is gone is taken over (renamed over), never honoured forever.
 */
export const LockHolder = z.object({ pid: z.number().int().positive(), started: z.string().optional() });
export type LockHolder = z.infer<typeof LockHolder>;

export const stateLockFile = (dir: string) => join(dir, 'server.lock');

export class StateDirLockedError extends Error {
  readonly code = 'state_dir_locked';
  constructor(
    readonly dir: string,
    readonly pid: number | undefined,
  ) {
    super(`the device change journal ${dir} is in use by another device server (${pid ? `pid ${pid}` : 'its pid is not written yet'}): one server per folder; stop that one or use another RELAY_DATA_DIR`);
  }
}

/** The kernel's start time of a process (clock ticks since boot), or undefined where /proc is absent. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether the process named in a lock is still the one that wrote it. */
export function holderAlive(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return holder.started === undefined || startTime(holder.pid) === undefined || startTime(holder.pid) === holder.started;
}

export function readHolder(dir: string): LockHolder | undefined {
  try {
    return LockHolder.parse(JSON.parse(readFileSync(stateLockFile(dir), 'utf8')));
  } catch {
    return undefined;
  }
}

/** The kernel-held half (Linux): bound by one process at a time, released when it dies. */
async function bindMutex(dir: string): Promise<Server | undefined> {
  if (process.platform !== 'linux') return undefined;
  const name = `\0fault-relay-devices-${createHash('sha256').update(realpathSync(dir)).digest('hex').slice(0, 32)}`;
  const server = createServer();
  const bound = await new Promise<boolean>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)));
    server.listen(name, () => resolve(true));
  });
  if (!bound) throw new StateDirLockedError(dir, readHolder(dir)?.pid);
  // Held, not waited on: it must not keep a process alive that is otherwise done.
  server.unref();
  return server;
}

export interface StateLock {
  /** A previous holder's lock that was taken over because its process was gone. */
  tookOverFrom?: number;
  release(): void;
}

/** Takes the folder's lock for this process, or throws StateDirLockedError naming the live holder. */
export async function lockStateDir(dir: string): Promise<StateLock> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mutex = await bindMutex(dir);
  const file = stateLockFile(dir);
  const mine: LockHolder = { pid: process.pid, ...(startTime(process.pid) ? { started: startTime(process.pid) } : {}) };
  const tmp = join(dir, `.server.lock.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(mine)}\n`, { mode: 0o600 });
  let tookOverFrom: number | undefined;
  try {
    try {
      // Exclusive: fails when any lock file is there, stale or not.
      linkSync(tmp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(dir);
      if (holder && holder.pid !== process.pid && holderAlive(holder)) {
        // Only where the mutex is absent (or the holder runs in another network namespace, where it is another name).
        mutex?.close();
        throw new StateDirLockedError(dir, holder.pid);
      }
      tookOverFrom = holder?.pid;
      renameSync(tmp, file);
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  let released = false;
  return {
    ...(tookOverFrom !== undefined ? { tookOverFrom } : {}),
    release() {
      if (released) return;
      released = true;
      // Removed only while it still names this process: never another holder's file.
      if (readHolder(dir)?.pid === process.pid) rmSync(file, { force: true });
      mutex?.close();
    },
  };
}
