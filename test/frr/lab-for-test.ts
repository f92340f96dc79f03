import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, onTestFinished } from 'vitest';
import { startDeviceServer, type RunningDeviceServer } from '../../src/adapters/devices/server';
import { resetFrrLab } from '../../harness/frr-lab/faults';
import { startFrrLab, type FrrLab } from '../../harness/frr-lab/lab';
import { tempDir } from '../helpers/temp-dir';
import { NO_FRR } from './frr-available';

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

export interface FileLab {
  lab: FrrLab;
  /** The file's own temp folder (the lab's is inside it), removed when the file's tests are done. */
  base: string;
  /** The SSH device tool server on the lab's inventory, when asked for. */
  server?: RunningDeviceServer;
}

export interface FileLabOptions {
  /** Names the temp folder (`fault-relay-<name>-…`). */
  name: string;
  /** Every session back up and no fault left before each case (harness/frr-lab/faults.ts). */
  resetBeforeEach?: boolean;
  /** A device tool server on the lab: `journal` gives it a state folder (provisional changes), options as startDeviceServer's. */
  deviceServer?: { journal?: boolean; beforeLine?: Parameters<typeof startDeviceServer>[0]['beforeLine'] };
}

/**
 * One FRR lab (and, when asked, one device tool server on it) for every case of a test file: starting
 * a lab is the expensive part. Started in the file's beforeAll and handed to `started` (where the file
 * keeps it, or adds what it builds on it), stopped in its afterAll (the server first); nothing when the
 * FRR tier is skipped here.
 */
export function frrLabForFile(opts: FileLabOptions, started: (shared: FileLab) => void | Promise<void>): void {
  let shared: FileLab | undefined;
  beforeAll(async () => {
    if (NO_FRR) return;
    const base = tempDir(`fault-relay-${opts.name}-`);
    const lab = await startFrrLab({ dir: join(base, 'lab'), routers: 2 });
    shared = { lab, base };
    if (opts.deviceServer) {
      const { journal, beforeLine } = opts.deviceServer;
      shared.server = await startDeviceServer({ inventoryPath: lab.inventoryPath, port: 0, ...(journal ? { stateDir: join(base, 'state') } : {}), ...(beforeLine ? { beforeLine } : {}) });
    }
    await started(shared);
  }, 180_000);
  afterAll(async () => {
    await shared?.server?.stop();
    await shared?.lab.stop();
  });
  if (opts.resetBeforeEach) {
    beforeEach(async () => {
      if (shared) await resetFrrLab(shared.lab);
    }, 120_000);
  }
}
