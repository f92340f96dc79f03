import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/opencode';
import { tempDir } from '../../helpers/temp-dir';

describe("the relay's log on standard output", () => {
  it('keeps every line written before the process is killed -9', async () => {
    const file = path.join(tempDir('sync-log-'), 'out.log');
    const out = openSync(file, 'w');
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/log-then-die.ts'], { cwd: repoRoot, stdio: ['ignore', out, 'inherit'] });
    closeSync(out);
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, sig) => resolve(sig)));

    expect(signal).toBe('SIGKILL');
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; msg: string });
    expect(lines.map((l) => l.line)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(lines.every((l) => l.msg === 'before the crash')).toBe(true);
  });
});
