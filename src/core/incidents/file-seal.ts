import { crc32 } from 'node:zlib';

/**
 * A list file's seal: the last member of the object, `"~seal": {stamp, key, count, crc32}`, where
 * crc32 covers every byte before it. A reader that finds the seal whole and matching knows the
 * file is exactly what the writer wrote, with that writer's stamp (the store's record format), and
 * may take the records without checking each; any other file (older, hand-edited, written by
 * `conf` or electron-store) is read the careful way. The seal is never trusted to say a file is
 * valid JSON: it is read only after JSON.parse has taken the whole file.
 */
export const SEAL_KEY = '~seal';
const MARKER = Buffer.from(`,${JSON.stringify(SEAL_KEY)}:`);

export interface Seal {
  stamp: string;
  key: string;
  count: number;
  crc32: number;
}

/** What closes a sealed file: written after the bytes the crc covers (which end with the list's `]`). */
export const sealTrailer = (seal: Seal) => `${MARKER.toString()}${JSON.stringify(seal)}}`;

/** The key and stamp a file was sealed with, when its seal holds for `bytes` and the parsed `data`; else undefined. */
export function readSeal(bytes: Buffer, data: Record<string, unknown>): { key: string; stamp: string } | undefined {
  const seal = data[SEAL_KEY] as Partial<Seal> | undefined;
  if (!seal || typeof seal !== 'object' || typeof seal.stamp !== 'string' || typeof seal.key !== 'string') return undefined;
  const list = data[seal.key];
  if (!Array.isArray(list) || list.length !== seal.count) return undefined;
  // The last marker is the seal's: one inside the data would be followed by it.
  const end = bytes.lastIndexOf(MARKER);
  if (end < 0 || crc32(bytes.subarray(0, end)) !== seal.crc32) return undefined;
  return { key: seal.key, stamp: seal.stamp };
}
