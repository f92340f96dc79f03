import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { startFrrLab, type FrrLab } from '../../harness/frr-lab/lab';

/**
 * An FRR lab for one test, removed when the test finishes however it ends (a timeout too: a `finally`
 * in the test body would not run then), and its folder only after the lab is down.
 */
export async function frrLabForTest(routers = 2): Promise<FrrLab> {
  const dir = mkdtempSync(join(tmpdir(), 'fault-relay-frr-'));
  const started = startFrrLab({ dir: join(dir, 'lab'), routers });
  onTestFinished(async () => {
    // A lab that failed to start has already removed itself.
    await started.then((lab) => lab.stop(), () => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  return started;
}
