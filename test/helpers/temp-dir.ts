import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { atExit } from './at-exit';


/**
 * A fresh folder under the system temp folder, removed when the current test finishes (or, made
 * outside a test, when the test process exits): nothing is left in the temp folder.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Retried: a process that just stopped may still be finishing a write inside (ENOTEMPTY).
  const remove = () => rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  try {
    onTestFinished(remove);
  } catch {
    atExit(remove);
  }
  return dir;
}
