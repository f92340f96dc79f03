import { closeSync, fstatSync, ftruncateSync, openSync } from 'node:fs';
import { DiskWriteError, writeFully } from './file-backend';

/**
 * One append-only file kept open. A line is written whole or not at all: a write the disk cuts
 * short is cut back to where it began, so the next line never lands glued to a torn one.
 */
export function createAppendFile(path: string) {
  let fd: number | undefined;
  return {
    append(text: string): void {
      fd ??= openSync(path, 'a', 0o600);
      appendWhole(fd, path, Buffer.from(text));
    },
    close(): void {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** Appends `data` to an open file whole, or throws a DiskWriteError and leaves the file as it was. */
export function appendWhole(fd: number, path: string, data: Buffer): void {
  try {
    writeFully(fd, data);
  } catch (error) {
    try {
      // Only a failed write pays for the stat: the file's length now, less what this write added.
      const size = fstatSync(fd).size;
      ftruncateSync(fd, Math.max(0, size - partialOf(error)));
    } catch {
      /* the file keeps a torn last line, which every reader skips */
    }
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    throw new DiskWriteError(code, `Could not append to ${path} (${code}).`);
  }
}

const partialOf = (error: unknown) => (error as { written?: number }).written ?? 0;
