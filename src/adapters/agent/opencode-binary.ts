import { accessSync, constants, existsSync, openSync, readSync, closeSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Finds the opencode executable installed from npm. `opencode-ai`'s postinstall links the
 * platform binary into its own `bin/`; when install scripts were skipped that file is missing,
 * so the platform packages (`opencode-<os>-<arch>[-baseline][-musl]`) are tried directly.
 */
export function resolveOpencodeBinary(fromDir: string = import.meta.dirname): string {
  const require = createRequire(path.join(fromDir, 'noop.js'));
  const tried: string[] = [];

  const fromWrapper = wrapperBin(require);
  if (fromWrapper) {
    if (isRunnable(fromWrapper)) return fromWrapper;
    tried.push(fromWrapper);
  }

  const exe = process.platform === 'win32' ? 'opencode.exe' : 'opencode';
  for (const name of platformPackages()) {
    let pkgJson: string;
    try {
      pkgJson = require.resolve(`${name}/package.json`);
    } catch {
      continue;
    }
    const candidate = path.join(path.dirname(pkgJson), 'bin', exe);
    if (isRunnable(candidate)) return candidate;
    tried.push(candidate);
  }
  throw new Error(
    `opencode binary not found (tried ${tried.length ? tried.join(', ') : 'opencode-ai and its platform packages'}); ` +
      'run `npm ci` with install scripts allowed for opencode-ai, or set AGENT_URL to a running runtime',
  );
}

function wrapperBin(require: NodeJS.Require): string | undefined {
  try {
    const pkgJson = require.resolve('opencode-ai/package.json');
    const pkg = JSON.parse(readFileSync(pkgJson, 'utf8')) as { bin?: string | Record<string, string> };
    const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.opencode;
    return bin ? path.join(path.dirname(pkgJson), bin) : undefined;
  } catch {
    return undefined;
  }
}

function platformPackages(): string[] {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const base = `opencode-${os}-${process.arch}`;
  const names = [base, `${base}-baseline`];
  if (os === 'linux') names.push(`${base}-musl`, `${base}-baseline-musl`);
  return names;
}

/** An executable file holding a native binary (ELF, Mach-O, PE) or a script with a shebang. */
function isRunnable(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    if (process.platform !== 'win32') accessSync(file, constants.X_OK);
    const head = Buffer.alloc(4);
    const fd = openSync(file, 'r');
    try {
      if (readSync(fd, head, 0, 4, 0) < 2) return false;
    } finally {
      closeSync(fd);
    }
    const magic = head.readUInt32BE(0);
    return (
      head.toString('latin1', 0, 4) === '\x7fELF' ||
      head.toString('latin1', 0, 2) === 'MZ' ||
      head.toString('latin1', 0, 2) === '#!' ||
      [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic)
    );
  } catch {
    return false;
  }
}
