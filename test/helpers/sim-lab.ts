import { afterAll, afterEach, beforeAll } from 'vitest';
import { startLab } from '../../harness/ios-lab/server';
import { silent } from './relay';

export type SimulatedLab = Awaited<ReturnType<typeof startLab>>;

/**
 * The simulated IOS lab behind its own MCP server for a test file: started once, converging at once,
 * reset after each test (faults and pending changes gone). Returns the running lab.
 */
export function useSimulatedLab(): () => SimulatedLab {
  let lab: SimulatedLab | undefined;
  beforeAll(async () => {
    lab = await startLab({ port: 0, host: '127.0.0.1', convergeDelayMs: 0, logger: silent });
  });
  afterEach(() => lab?.lab.reset());
  afterAll(async () => lab?.stop());
  return () => {
    if (!lab) throw new Error('the simulated lab has not started');
    return lab;
  };
}
