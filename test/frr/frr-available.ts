import { frrLabUnavailable } from '../../src/frr-lab/host';

/** Why the real-router tier is skipped here (one line), or undefined when it runs. */
export const NO_FRR = frrLabUnavailable();
if (NO_FRR) console.warn(`frr: skipped, ${NO_FRR}`);
