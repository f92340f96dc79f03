import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it, onTestFinished } from 'vitest';
import { lockStateDir, StateDirLockedError, stateLockFile } from '../../../src/adapters/devices/state-lock';
import { tempDir } from '../../helpers/temp-dir';

const module = resolve(import.meta.dirname, '../../../src/adapters/devices/state-lock.ts');

/** Another process that tries the folder's lock and says `locked` or `refused <pid>`, then holds on until killed. */
function contender(dir: string): { child: ChildProcess; said: Promise<string> } {
  const code = `import { lockStateDir } from ${JSON.stringify(module)};
lockStateDir(${JSON.stringify(dir)}).then(() => console.log('locked'), (e) => console.log('refused ' + e.pid));
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  onTestFinished(() => void child.kill('SIGKILL'));
  const said = new Promise<string>((res) => createInterface({ input: child.stdout }).once('line', res));
  return { child, said };
}

const exited = (child: ChildProcess) => new Promise((res) => (child.exitCode !== null || child.signalCode !== null ? res(undefined) : child.once('exit', res)));

describe('the device change journal lock (one device server per folder)', () => {
  it('a folder held by a live process is refused naming the folder and its pid; once that process is killed -9 its stale lock is taken over', async () => {
    const dir = tempDir('state-lock-');
    const holder = contender(dir);
    expect(await holder.said).toBe('locked');
    const refused = await lockStateDir(dir).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StateDirLockedError);
    expect(refused).toMatchObject({ code: 'state_dir_locked', dir, pid: holder.child.pid });
    expect((refused as Error).message).toContain(dir);
    expect((refused as Error).message).toContain(`pid ${holder.child.pid}`);

    holder.child.kill('SIGKILL');
    await exited(holder.child);
    // kill -9 leaves its file behind, naming a process that is gone.
    expect(JSON.parse(readFileSync(stateLockFile(dir), 'utf8'))).toMatchObject({ pid: holder.child.pid });
    const lock = await lockStateDir(dir);
    expect(lock.tookOverFrom).toBe(holder.child.pid);
    expect(JSON.parse(readFileSync(stateLockFile(dir), 'utf8'))).toMatchObject({ pid: process.pid });
    // While this process holds it, another is refused naming this one.
    expect(await contender(dir).said).toBe(`refused ${process.pid}`);
    lock.release();
    expect(existsSync(stateLockFile(dir))).toBe(false);
    expect(await contender(dir).said).toBe('locked');
  });

  it('a lock file naming a process that is alive but is not the one that wrote it (a reused pid) is taken over', async () => {
    const dir = tempDir('state-lock-reused-');
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    onTestFinished(() => void other.kill('SIGKILL'));
    // A live process's pid with another start time: what a pid reused after a reboot or wrap-around looks like.
    writeFileSync(stateLockFile(dir), JSON.stringify({ pid: other.pid, started: '1' }));
    const lock = await lockStateDir(dir);
    expect(lock.tookOverFrom).toBe(other.pid);
    lock.release();
  });

  it('three processes started at once on one folder: exactly one holds it, the others are refused naming it', async () => {
    const dir = join(tempDir('state-lock-race-'), 'device-changes');
    const all = Array.from({ length: 3 }, () => contender(dir));
    const said = await Promise.all(all.map((c) => c.said));
    const winners = all.filter((_, i) => said[i] === 'locked');
    expect(winners).toHaveLength(1);
    // A loser may have looked before the winner wrote its pid; every pid it names is the winner's.
    for (const s of said.filter((x) => x !== 'locked')) expect([`refused ${winners[0]!.child.pid}`, 'refused undefined']).toContain(s);
  });
});
