import { frrLabUnavailable } from '../../harness/frr-lab/host';

/** Why the real-router tier is skipped here (one line), or undefined when it runs. */
export const NO_FRR = frrLabUnavailable();
if (NO_FRR) console.warn(`frr: skipped, ${NO_FRR}`);

/**
 * A hang guard, not a speed bar, for a test that runs a whole artifact group's cases on real routers
 * (each case resets the lab and waits for sessions to converge): beside three other suites on two
 * cores one took more than the suite's default 3 minutes.
 */
export const GROUP_ON_FRR_TIMEOUT_MS = 480_000;
