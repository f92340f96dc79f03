import { existsSync, readFileSync, rmSync } from 'node:fs';
import { ipCommand, run } from './host';
import { LabStateFile, processStartTime } from './state';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function stopPids(pids: number[]): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  const deadline = Date.now() + 5_000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const pid of pids.filter(alive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/**
 * Removes everything a lab recorded in its state file: sshd and FRR processes, anything else still
 * running in its namespaces, the namespaces (their veths go with them), FRR's per-router folders,
 * and the lab's own folder. Safe to run twice, and after a lab that was killed half-way up.
 * Returns what it removed, for `--down` to print.
 */
export async function teardownLab(statePath: string): Promise<string[]> {
  const file = LabStateFile.read(statePath);
  if (!file) return [];
  const s = file.state;
  const removed: string[] = [];
  const ip = ipCommand();

  // Only processes whose start time still matches: a pid reused since is someone else's.
  const sshd = s.processes.filter((p) => processStartTime(p.pid) === p.startTime).map((p) => p.pid);
  const daemons = s.pidFiles.flatMap((f) => {
    try {
      return [Number(readFileSync(f, 'utf8').trim())].filter((n) => n > 0);
    } catch {
      return [];
    }
  });
  const inNamespaces: number[] = [];
  for (const ns of s.namespaces) {
    const out = await run(ip, ['netns', 'pids', ns]).catch(() => '');
    inNamespaces.push(...out.split('\n').map(Number).filter((n) => n > 0));
  }
  const pids = [...new Set([...sshd, ...daemons, ...inNamespaces])];
  await stopPids(pids);
  if (pids.length) removed.push(`${pids.length} processes`);

  for (const ns of s.namespaces) {
    const gone = await run(ip, ['netns', 'del', ns]).then(() => true, () => false);
    if (gone) removed.push(`namespace ${ns}`);
  }
  for (const d of s.dirs) {
    if (existsSync(d)) {
      rmSync(d, { recursive: true, force: true });
      removed.push(d);
    }
  }
  if (s.createdRunSshd) rmSync('/run/sshd', { recursive: true, force: true });
  rmSync(s.dir, { recursive: true, force: true });
  return removed;
}
