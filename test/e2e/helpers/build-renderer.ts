import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { repoRoot } from '../../helpers/opencode';

/** Builds the renderer once into a temp folder (no source maps: the tests only serve it). */
export async function buildRendererForTest(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), 'fault-relay-ui-'));
  await build({
    configFile: join(repoRoot, 'vite.config.ts'),
    root: join(repoRoot, 'renderer'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, sourcemap: false, reportCompressedSize: false },
  });
  return outDir;
}
