import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { netconfLabUnavailable } from '../../harness/netconf-lab/plan';
import { startNetconfLab, type NetconfLab } from '../../harness/netconf-lab/lab';
import { teardownNetconfLabSync } from '../../harness/netconf-lab/teardown';
import { atExit } from '../helpers/at-exit';

/** Why the NETCONF tier is skipped here (one line), or undefined when it runs. */
export const NO_NETCONF = netconfLabUnavailable();
if (NO_NETCONF) console.warn(`netconf: skipped, ${NO_NETCONF}`);

/**
 * A NETCONF lab for one test file. The caller stops it in afterAll (which runs after a failed or
 * timed-out test too); if the worker is ended before that (SIGTERM, an uncaught error), the
 * process-exit hook removes it synchronously from its state file. Its folder goes last.
 */
export async function netconfLabForTests(): Promise<NetconfLab> {
  const base = mkdtempSync(join(tmpdir(), 'fault-relay-netconf-'));
  const dir = join(base, 'lab');
  atExit(() => {
    teardownNetconfLabSync(join(dir, 'state.json'));
    rmSync(base, { recursive: true, force: true });
  });
  const lab = await startNetconfLab({ dir });
  const stop = lab.stop;
  return {
    ...lab,
    stop: async () => {
      await stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}
