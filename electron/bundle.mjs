/**
 * Bundles the main process and the preload to CommonJS (package.json's `main` is main.cjs and a
 * sandboxed preload cannot load modules). Used by `npm start` and by the bundle smoke test.
 */
import { build } from 'esbuild';

export async function bundleElectron({ root, outDir = 'dist-electron' }) {
  const common = { bundle: true, sourcemap: true, logLevel: 'warning', absWorkingDir: root };
  await Promise.all([
    build({
      ...common,
      entryPoints: ['electron/main.ts'],
      outfile: `${outDir}/main.cjs`,
      platform: 'node',
      target: 'node22',
      format: 'cjs',
      // Optional native speed-ups (ws's, and ssh2's CPU feature probe): absent is fine, bundling them is not.
      external: ['electron', 'bufferutil', 'utf-8-validate', 'cpu-features'],
      // The relay's ESM sources locate files next to themselves; in the CommonJS bundle that is __dirname.
      define: { 'import.meta.dirname': '__dirname', 'import.meta.url': '__importMetaUrl' },
      banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    }),
    // A sandboxed preload can require only `electron`: everything else is inlined.
    build({ ...common, entryPoints: ['electron/preload.ts'], outfile: `${outDir}/preload.cjs`, platform: 'browser', target: 'chrome140', format: 'cjs', external: ['electron'] }),
  ]);
}
