import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let dir: string | undefined;

/**
 * RELAY_LOG_DIR for relays made in tests: the default (`logs` under the working directory) is the
 * clone itself, where every finished incident of a test left its session log. One folder per test
 * file, removed after it (test/setup.ts).
 */
export function testLogDir(): string {
  dir ??= mkdtempSync(join(tmpdir(), 'fault-relay-test-logs-'));
  return dir;
}

export function removeTestLogDir(): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
}
