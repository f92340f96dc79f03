/**
 * `npm start`: builds the renderer (vite) and the main process + preload (esbuild), makes sure
 * Electron's binary is there (downloaded on the first start, since install scripts are off),
 * then runs the tray app. `--build-only` stops after the build (`npm run dist` packages it).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const buildOnly = process.argv.includes('--build-only');

const fail = (message) => {
  process.stderr.write(`start-electron: ${message}\n`);
  process.exit(1);
};
const firstLine = (error) => String(error?.message ?? error).split('\n').find((l) => l.trim()) ?? 'unknown error';

async function buildRenderer() {
  const { build } = await import('vite');
  await build({ root: join(root, 'renderer'), configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
}

async function buildMain() {
  const { bundleElectron } = await import('../electron/bundle.mjs');
  await bundleElectron({ root });
}

/** Electron's install script downloads the binary; it prints a stack when offline, so only its gist is shown. */
function ensureElectronBinary() {
  const pkgDir = dirname(require.resolve('electron/package.json'));
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  if (existsSync(join(pkgDir, 'path.txt')) && existsSync(join(pkgDir, 'dist'))) return Promise.resolve(pkgDir);
  process.stdout.write(`start-electron: downloading Electron ${version} (first start only, about 100 MB)…\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(pkgDir, 'install.js')], { cwd: pkgDir, stdio: ['ignore', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && existsSync(join(pkgDir, 'dist'))) return resolve(pkgDir);
      const reason = firstLine(stderr || `install.js exited with ${code}`).replace(/^\w*Error: /, '').trim();
      reject(new Error(`could not download Electron ${version} (${reason}): check the network (or set ELECTRON_MIRROR) and run npm start again`));
    });
  });
}

try {
  await buildRenderer();
} catch (error) {
  fail(`the renderer did not build: ${firstLine(error)}`);
}
try {
  await buildMain();
} catch (error) {
  fail(`the main process did not build: ${firstLine(error)}`);
}
process.stdout.write('start-electron: built dist-renderer/ and dist-electron/{main,preload}.cjs\n');
if (buildOnly) process.exit(0);

let pkgDir;
try {
  pkgDir = await ensureElectronBinary();
} catch (error) {
  fail(firstLine(error));
}
const executable = join(pkgDir, 'dist', readFileSync(join(pkgDir, 'path.txt'), 'utf8').trim());
const child = spawn(executable, [root, ...process.argv.slice(2).filter((a) => a !== '--build-only')], { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
