/**
 * A CPU budget for one process of a bench, with a Linux cgroup (the v1 `cpu` controller or v2's
 * `cpu.max`): a relay limited to a fraction of a CPU behaves as a relay on a small machine of its
 * own, so two relays on a two-core box can be compared with one when the relays, and not the
 * database or the sender sharing the box, are what limits intake. Needs root; without it the
 * bench says why and leaves that part out.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorText } from '../../src/core/error-body';

const PERIOD_US = 100_000;

export interface CpuLimit {
  /** Removes the group (once its processes have exited, or were moved back). */
  remove(): void;
}

function groupRoot(): { dir: string; v2: boolean } | string {
  if (process.platform !== 'linux') return 'cgroups are Linux only';
  if (existsSync('/sys/fs/cgroup/cpu/cpu.cfs_quota_us')) return { dir: '/sys/fs/cgroup/cpu', v2: false };
  if (existsSync('/sys/fs/cgroup/cgroup.controllers')) {
    if (!readFileSync('/sys/fs/cgroup/cgroup.subtree_control', 'utf8').split(/\s+/).includes('cpu')) return "cgroup v2 without the cpu controller enabled at the root ('+cpu' in cgroup.subtree_control)";
    return { dir: '/sys/fs/cgroup', v2: true };
  }
  return 'no cgroup cpu controller at /sys/fs/cgroup';
}

/** Puts `pid` in a new group of its own limited to `cpus` CPUs; a string says why it could not. */
export function limitCpu(pid: number, cpus: number, name: string): CpuLimit | string {
  const root = groupRoot();
  if (typeof root === 'string') return root;
  const dir = join(root.dir, name);
  try {
    mkdirSync(dir);
    const quota = Math.max(1_000, Math.round(cpus * PERIOD_US));
    if (root.v2) writeFileSync(join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
    else {
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
    }
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
  } catch (error) {
    removeGroup(dir, root.dir);
    return `cannot make a cgroup (${(error as NodeJS.ErrnoException).code ?? errorText(error)}; root is needed)`;
  }
  return { remove: () => removeGroup(dir, root.dir) };
}

function removeGroup(dir: string, parent: string): void {
  if (!existsSync(dir)) return;
  try {
    // Processes still in it go back to the parent first (a group with members cannot be removed).
    for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) writeFileSync(join(parent, 'cgroup.procs'), pid);
    rmdirSync(dir);
  } catch {
    // A group left behind holds no process once the bench's have exited; its name says whose it was.
  }
}

/** Groups an earlier bench left behind (killed before it could clean up), removed. */
export function removeStaleGroups(prefix: string): void {
  const root = groupRoot();
  if (typeof root === 'string') return;
  for (const entry of readdirSync(root.dir)) if (entry.startsWith(prefix)) removeGroup(join(root.dir, entry), root.dir);
}
