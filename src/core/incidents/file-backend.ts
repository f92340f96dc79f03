import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { crc32 } from 'node:zlib';
import { isAscii } from 'node:buffer';
import type { KeyValueBackend } from './store';
import { open, rename, rm } from 'node:fs/promises';
import { readSeal, sealTrailer, SEAL_KEY } from './file-seal';
import { errorText } from '../error-body';

/** A disk error that leaves the previous copy in place: the caller answers 503 and tries again later. */
export class DiskWriteError extends Error {
  override readonly name = 'DiskWriteError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** An error of the disk (full, read-only, gone), as opposed to a bug: the store says so and tries again. */
export const isDiskError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof DiskWriteError || (typeof (error as NodeJS.ErrnoException | null)?.code === 'string' && /^E[A-Z]+$/.test(String((error as NodeJS.ErrnoException).code)));

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code ?? 'EIO';

/**
 * Writes all of `data` at the descriptor's position. A disk that fills mid-write returns a
 * short count before it fails: the loop turns that into the ENOSPC it is, never a shorter file.
 */
export function writeFully(fd: number, data: Buffer): void {
  let written = 0;
  try {
    while (written < data.length) {
      const n = writeSync(fd, data, written);
      if (n <= 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      written += n;
    }
  } catch (error) {
    // How much of this write reached the file, for a caller that cuts it back.
    throw Object.assign(error instanceof Error ? error : new Error(String(error)), { written });
  }
}

/** Makes a rename durable: the folder's entry, not only the file. */
function fsyncDir(dir: string) {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    /* some filesystems refuse to fsync a folder: the rename itself is still atomic */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Replaces `path` with `text` so that the file is always one whole copy: written to a temp file,
 * checked for its full length and made durable, and only then renamed over the previous copy.
 * Any failure (a full disk above all) removes the temp file and leaves the previous copy as it was.
 */
export function replaceFileDurably(path: string, text: string | Buffer): void {
  const data = typeof text === 'string' ? Buffer.from(text) : text;
  const temp = `${path}.${process.pid}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'w', 0o600);
    writeFully(fd, data);
    fsyncSync(fd);
    const size = fstatSync(fd).size;
    if (size !== data.length) throw Object.assign(new Error(`wrote ${size} of ${data.length} bytes`), { code: 'EIO' });
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    const code = codeOf(error);
    throw new DiskWriteError(code, `Could not write ${path} (${code}): ${errorText(error)}. The previous copy is kept.`);
  }
  fsyncDir(dirname(path));
}

/** How many items are serialized per turn of the event loop: the intake answers in between. */
const CHUNK = 500;

/**
 * Writes `{"<key>": [...]}` to `path` the way `replaceFileDurably` does (temp file, full
 * length checked, fsync, rename), but a chunk of items at a time with the event loop free in
 * between: a compaction of 100,000 incidents never holds up an alert for its whole length.
 */
export async function writeListInChunks(path: string, key: string, items: readonly unknown[], stamp?: string): Promise<number> {
  const temp = `${path}.${process.pid}.compact.tmp`;
  const file = await open(temp, 'w', 0o600);
  let expected = 0;
  let crc = 0;
  try {
    const put = async (text: string) => {
      const data = Buffer.from(text);
      expected += data.length;
      crc = crc32(data, crc);
      for (let written = 0; written < data.length; ) {
        const { bytesWritten } = await file.write(data, written);
        if (bytesWritten <= 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        written += bytesWritten;
      }
    };
    await put(`{${JSON.stringify(key)}:[`);
    for (let i = 0; i < items.length; i += CHUNK) {
      const part = items.slice(i, i + CHUNK).map((x) => JSON.stringify(x)).join(',');
      await put(i === 0 ? part : `,${part}`);
    }
    await put(']');
    await put(stamp === undefined ? '}' : sealTrailer({ stamp, key, count: items.length, crc32: crc }));
    await file.sync();
    const { size } = await file.stat();
    if (size !== expected) throw Object.assign(new Error(`wrote ${size} of ${expected} bytes`), { code: 'EIO' });
    await file.close();
    await rename(temp, path);
  } catch (error) {
    await file.close().catch(() => {});
    await rm(temp, { force: true });
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    throw new DiskWriteError(code, `Could not write ${path} (${code}). The previous copy is kept.`);
  }
  const dir = await open(dirname(path), 'r').catch(() => undefined);
  await dir?.sync().catch(() => {});
  await dir?.close();
  return expected;
}

/**
 * The incident index as one JSON object per file (`<name>.json`, the layout `conf` and
 * electron-store use, so either's files read as they are). Every `set` rewrites the file
 * through `replaceFileDurably`; a file that cannot be read is an error, never an empty store.
 * A list written with a stamp is sealed (src/core/incidents/file-seal.ts): `sealOf` tells a reader
 * the file is, byte for byte, what this backend wrote with that stamp.
 */
export function createFileBackend(dataDir: string, name: string): KeyValueBackend & { path: string } {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${name}.json`);
  let data: Record<string, unknown> = {};
  let seal: { key: string; stamp: string } | undefined;
  let bytes: Buffer | undefined;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
  }
  // JSON the relay wrote is nearly always ASCII: then the cheapest decoding is also the right one.
  const text = bytes && (isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8'));
  if (bytes && text !== undefined && text.trim() !== '') {
    try {
      data = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(`${path} is not valid JSON: the relay will not start over an unreadable store. Restore it from a backup, or move it aside to start empty.`);
    }
    seal = readSeal(bytes, data);
    delete data[SEAL_KEY];
  }
  return {
    path,
    // Read once, at start: the store keeps its own index in memory.
    get: (key) => data[key],
    sealOf: (key) => (seal?.key === key ? seal.stamp : undefined),
    set(key, value, stamp) {
      const next = { ...data, [key]: value };
      const sealed = stamp !== undefined && Array.isArray(value);
      const body = JSON.stringify(next);
      if (!sealed) replaceFileDurably(path, body);
      else {
        // The object without its closing brace, then the seal over exactly those bytes.
        const head = Buffer.from(body.slice(0, -1));
        replaceFileDurably(path, Buffer.concat([head, Buffer.from(sealTrailer({ stamp, key, count: value.length, crc32: crc32(head) }))]));
      }
      data = next;
      seal = sealed ? { key, stamp } : undefined;
    },
    // The file holds one list (the store's index): written a chunk at a time, off the event loop's back.
    async setList(key, list, stamp) {
      const written = await writeListInChunks(path, key, list, stamp);
      data = { [key]: list };
      seal = stamp === undefined ? undefined : { key, stamp };
      return written;
    },
  };
}

/** Open incidents and the archive of finished ones, in two files so a state change rewrites only the small one. */
export function createFileBackends(dataDir: string): { open: KeyValueBackend; archive: KeyValueBackend } {
  return { open: createFileBackend(dataDir, 'incidents'), archive: createFileBackend(dataDir, 'incidents-archive') };
}
