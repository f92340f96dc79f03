import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Integration tests start real processes (opencode, chromium); two cores here. These are hang
    // guards for a loaded machine (CI runs beside other work), never speed bars: no test waits on them.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    setupFiles: ['test/setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
