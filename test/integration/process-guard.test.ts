import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnGuarded } from '../../src/adapters/agent/process-guard';
import { isProcessAlive, waitUntil } from '../helpers/opencode';
import { tempDir } from '../helpers/temp-dir';

/**
 * The guard between the relay and opencode, on real processes: a stand-in runtime (a shell) starts
 * a child that ignores SIGTERM, as opencode's git snapshot or a local MCP server may outlive it.
 */
let straggler: number | undefined;
afterEach(() => {
  if (straggler && isProcessAlive(straggler)) process.kill(straggler, 'SIGKILL');
  straggler = undefined;
});

async function startWithStraggler(runtimeIgnoresTerm: boolean) {
  const dir = tempDir('process-guard-');
  const pidFile = join(dir, 'straggler.pid');
  const child = `sh -c 'trap "" TERM; echo $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; exec sleep 600' &`;
  const script = runtimeIgnoresTerm ? `trap "" TERM; ${child} while :; do sleep 1; done` : `${child} wait`;
  const proc = spawnGuarded('sh', ['-c', script], { cwd: dir, env: { PATH: process.env.PATH ?? '' }, graceMs: 300 });
  await waitUntil(() => existsSync(pidFile), 'the stand-in runtime started its child');
  straggler = Number(readFileSync(pidFile, 'utf8'));
  expect(isProcessAlive(straggler)).toBe(true);
  return { proc, runtimePid: (await proc.runtimePid) as number, straggler };
}

describe('the runtime guard', () => {
  it('takes down what the runtime started once the runtime stops, even a process that ignores SIGTERM', async () => {
    const { proc, runtimePid, straggler: pid } = await startWithStraggler(false);
    proc.guard.kill('SIGTERM');
    await proc.exited;
    expect(isProcessAlive(runtimePid)).toBe(false);
    await waitUntil(() => !isProcessAlive(pid), `the runtime's child ${pid} is gone with it`);
  });

  it('after the grace period, kills a runtime that ignores SIGTERM together with its children', async () => {
    const { proc, runtimePid, straggler: pid } = await startWithStraggler(true);
    proc.guard.kill('SIGTERM');
    const exit = await proc.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(isProcessAlive(runtimePid)).toBe(false);
    await waitUntil(() => !isProcessAlive(pid), `the runtime's child ${pid} is gone with it`);
  });

  it('when the runtime dies on its own, its children go too (the relay starts a new runtime with new ones)', async () => {
    const { proc, runtimePid, straggler: pid } = await startWithStraggler(false);
    process.kill(runtimePid, 'SIGKILL');
    const exit = await proc.exited;
    expect(exit.signal).toBe('SIGKILL');
    await waitUntil(() => !isProcessAlive(pid), `the runtime's child ${pid} is gone with it`);
  });
});
