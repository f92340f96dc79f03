import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite's wall time is set by its few long files (real routers, the agent runtime, browsers), not
 * by the many short ones. Started first, the long files overlap each other and the short ones fill the
 * workers at the end; started late (vitest's default without a cache is "larger files first"), one of
 * them runs alone after everything else has finished.
 */
const LONG_FIRST = ['test/frr/', 'test/integration/', 'test/e2e/', 'test/netconf/', 'test/team/', 'test/store/'];

class LongFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const keyed = files.map((spec) => {
      const file = relative(process.cwd(), spec.moduleId).split('\\').join('/');
      const at = LONG_FIRST.findIndex((folder) => file.startsWith(folder));
      return { spec, rank: at === -1 ? LONG_FIRST.length : at, size: statSync(spec.moduleId).size };
    });
    keyed.sort((a, b) => a.rank - b.rank || b.size - a.size);
    return Promise.resolve(keyed.map((k) => k.spec));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Integration tests start real processes (opencode, chromium); two cores here. These are hang
    // guards for a loaded machine (CI runs beside other work), never speed bars: no test waits on them.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    sequence: { sequencer: LongFirstSequencer },
  },
});
