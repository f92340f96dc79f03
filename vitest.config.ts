import { readdirSync, statSync } from 'node:fs';
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

/**
 * Files that share one worker process (no per-file isolation): importing fastify, zod, pino, the
 * MCP SDK etc. again for each of them cost more CPU than their tests. What such a file must not
 * leak is in test/README.md. The exceptions start processes (PostgreSQL, opencode, the relay),
 * start the global OpenTelemetry SDK, or replace a module with vi.mock: each keeps a fork of its own.
 */
const OWN_PROCESS = [
  'approval-restart-states', 'approval-restart', 'busy-device', 'channel-seam', 'device-guard', 'device-server-auth',
  'device-server-settings', 'headed', 'held-restart', 'plan', 'proxies', 'quarantine', 'terminal-channel', 'ui-routes',
  'unstorable-text',
];
const SHARED = [
  'test/unit/**/*.test.{ts,tsx}',
  'test/lab/*.test.ts',
  'test/slack/*.test.ts',
  ...readdirSync(new URL('test/relay', import.meta.url))
    .filter((name) => name.endsWith('.test.ts') && !OWN_PROCESS.includes(name.slice(0, -'.test.ts'.length)))
    .map((name) => `test/relay/${name}`),
];

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
        test: { name: 'isolated', include: ['test/**/*.test.{ts,tsx}'], exclude: SHARED },
      },
      { extends: true, test: { name: 'shared', include: SHARED, isolate: false } },
    ],
  },
});
