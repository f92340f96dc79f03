import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SHARED } from './test/projects';

/**
 * The suite's wall time is set by its few long files (real routers, the agent runtime, browsers), not
 * by the many short ones. Started first, the long files overlap each other and the short ones fill the
 * workers at the end; started late (vitest's default without a cache is "larger files first"), one of
 * them runs alone after everything else has finished.
 */
const LONG_FIRST = ['test/frr/', 'test/integration/', 'test/e2e/', 'test/netconf/', 'test/team/', 'test/store/'];

class LongFirstSequencer extends BaseSequencer {
  /**
   * The shared files come last and together: a worker is reused only while the next file in the
   * queue is a shared one too, and small files are what evens out the two workers at the end.
   */
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const keyed = files.map((spec) => {
      const file = relative(process.cwd(), spec.moduleId).split('\\').join('/');
      const at = LONG_FIRST.findIndex((folder) => file.startsWith(folder));
      const rank = spec.project.config.isolate ? (at === -1 ? LONG_FIRST.length : at) : LONG_FIRST.length + 1;
      return { spec, rank, size: statSync(spec.moduleId).size };
    });
    keyed.sort((a, b) => a.rank - b.rank || b.size - a.size);
    return Promise.resolve(keyed.map((k) => k.spec));
  }
}

export default defineConfig({
  test: {
    // Integration tests start real processes (opencode, chromium); two cores here. These are hang
    // guards for a loaded machine (CI runs beside other work), never speed bars: no test waits on them.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    setupFiles: ['test/setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    sequence: { sequencer: LongFirstSequencer },
    projects: [
      {
        extends: true,
        // Set in this project only: a global setup runs once per project that has it, and the shared
        // files start no PostgreSQL server.
        test: { name: 'isolated', include: ['test/**/*.test.{ts,tsx}'], exclude: SHARED, globalSetup: ['test/global-setup.ts'] },
      },
      { extends: true, test: { name: 'shared', include: SHARED, isolate: false } },
    ],
  },
});
