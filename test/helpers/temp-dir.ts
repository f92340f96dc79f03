import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
// Removed when the test process ends, whatever the test did: nothing is left in the temp folder.
process.once('exit', () => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A fresh folder under the system temp folder that is removed when the test process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
