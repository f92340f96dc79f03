import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntimeTmpdir } from '../../../src/adapters/agent/runtime-tmpdir';

const bases: string[] = [];
afterEach(() => {
  for (const b of bases.splice(0)) rmSync(b, { recursive: true, force: true });
});
const base = () => {
  const b = mkdtempSync(path.join(os.tmpdir(), 'rt-tmp-test-'));
  bases.push(b);
  return b;
};
/** The pid of a process that has ended (spawnSync waits for it). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid;

describe('the runtime temp folder', () => {
  it('is a fresh folder named for this relay, removed with what the runtime put in it', () => {
    const b = base();
    const dir = createRuntimeTmpdir(b);
    expect(path.basename(dir.path)).toMatch(new RegExp(`^fault-relay-runtime-${process.pid}-`));
    writeFileSync(path.join(dir.path, '.bcfb-00000000.so'), 'x');
    dir.remove();
    dir.remove();
    expect(existsSync(dir.path)).toBe(false);
  });

  it("sweeps a killed relay's folder on the next start, and leaves a live relay's and other files alone", () => {
    const b = base();
    const dead = path.join(b, `fault-relay-runtime-${deadPid()}-abc123`);
    const live = path.join(b, `fault-relay-runtime-${process.ppid}-def456`);
    const other = path.join(b, 'someone-else');
    for (const d of [dead, live, other]) mkdirSync(d);
    writeFileSync(path.join(dead, '.x-00000000.so'), 'x');
    const dir = createRuntimeTmpdir(b);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(other)).toBe(true);
    dir.remove();
  });
});
