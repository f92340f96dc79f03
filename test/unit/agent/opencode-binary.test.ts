import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveOpencodeBinary } from '../../../src/adapters/agent/opencode-binary';

const tmp: string[] = [];
afterEach(() => tmp.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function project(files: Record<string, string>, executable: string[] = []) {
  const dir = mkdtempSync(path.join(tmpdir(), 'oc-bin-'));
  tmp.push(dir);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  for (const file of executable) chmodSync(path.join(dir, file), 0o755);
  return dir;
}

const platformPkg = `opencode-${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;

describe('opencode binary resolution', () => {
  it('finds the installed opencode, which runs and has the pinned version', () => {
    const bin = resolveOpencodeBinary();
    // A temp folder of its own: the binary unpacks a native library into TMPDIR on every start and leaves it.
    const scratch = project({});
    const out = spawnSync(bin, ['--version'], { encoding: 'utf8', env: { ...process.env, TMPDIR: scratch } });
    expect(out.stdout.trim()).toBe('1.18.33');
  });

  it('falls back to the platform package when opencode-ai has no usable bin (install scripts skipped)', () => {
    const dir = project(
      {
        'node_modules/opencode-ai/package.json': JSON.stringify({ name: 'opencode-ai', bin: { opencode: './bin/opencode.exe' } }),
        [`node_modules/${platformPkg}/package.json`]: JSON.stringify({ name: platformPkg }),
        [`node_modules/${platformPkg}/bin/opencode`]: '#!/bin/sh\necho fake\n',
      },
      [`node_modules/${platformPkg}/bin/opencode`],
    );
    expect(resolveOpencodeBinary(dir)).toBe(path.join(dir, 'node_modules', platformPkg, 'bin', 'opencode'));
  });

  it('refuses a bin that is not executable and says how to fix it', () => {
    const dir = project({
      'node_modules/opencode-ai/package.json': JSON.stringify({ name: 'opencode-ai', bin: { opencode: './bin/opencode.exe' } }),
      'node_modules/opencode-ai/bin/opencode.exe': 'placeholder',
    });
    expect(() => resolveOpencodeBinary(dir)).toThrow(/opencode binary not found.*AGENT_URL/);
  });
});
