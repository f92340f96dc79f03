import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { ipCommand, run } from '../frr-lab/host';
import { LabStateFile, processStartTime } from '../frr-lab/state';
import { teardownLab } from '../frr-lab/teardown';

/** pid → parent pid for every process now (from /proc/PID/stat). */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      map.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  return map;
}

/**
 * Processes the state file does not name but the lab made: everything under its sshd (the
 * per-connection sshd processes and the netconf-subsystem each NETCONF session runs; sshd does not
 * end them when it is stopped), and anything carrying the lab's marker in its environment
 * (sshd's `SetEnv FAULT_RELAY_LAB=<id>` reaches every session, also one orphaned by a killed sshd).
 */
export function labStragglers(statePath: string): number[] {
  const file = LabStateFile.read(statePath);
  if (!file) return [];
  const roots = file.state.processes.filter((p) => processStartTime(p.pid) === p.startTime).map((p) => p.pid);
  const tree = parents();
  const found = new Set<number>();
  const under = (pid: number): void => {
    for (const [child, parent] of tree) {
      if (parent !== pid || found.has(child)) continue;
      found.add(child);
      under(child);
    }
  };
  roots.forEach(under);
  const marker = `FAULT_RELAY_LAB=${file.state.id}\0`;
  for (const pid of tree.keys()) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker)) found.add(pid);
    } catch {
      /* gone, or a kernel thread */
    }
  }
  found.delete(process.pid);
  return [...found];
}

const kill = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal);
  } catch {
    /* already gone */
  }
};

/**
 * Removes everything the NETCONF lab made: the stragglers above first (found while their sshd still
 * stands, so the process tree is intact), then, through the FRR lab's teardown (same state file):
 * sshd and netconfd, anything else in the namespace, the namespace, the runtime folder and the
 * lab's folder. Safe to run twice.
 */
export async function teardownNetconfLab(statePath: string): Promise<string[]> {
  const stragglers = labStragglers(statePath);
  stragglers.forEach((pid) => kill(pid, 'SIGTERM'));
  keepSharedRunSshd(statePath, stragglers);
  const removed = await teardownLab(statePath);
  // Sessions normally end with their sshd; whatever did not is killed now.
  labLeftovers(stragglers).forEach((pid) => kill(pid, 'SIGKILL'));
  return stragglers.length ? [`${stragglers.length} session processes`, ...removed] : removed;
}

/**
 * /run/sshd is sshd's privilege-separation folder, shared by every sshd on the host: one this lab
 * created is left in place while another sshd (another lab's, started meanwhile) still runs.
 */
function keepSharedRunSshd(statePath: string, ours: number[]): void {
  const file = LabStateFile.read(statePath);
  if (!file?.state.createdRunSshd) return;
  const mine = new Set([...ours, ...file.state.processes.map((p) => p.pid)]);
  const other = [...parents().keys()].some((pid) => {
    try {
      return !mine.has(pid) && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sshd';
    } catch {
      return false;
    }
  });
  if (other) file.record((s) => (s.createdRunSshd = false));
}

const labLeftovers = (pids: number[]) => pids.filter((pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
});

/**
 * The same, synchronously and without grace (SIGKILL), for a test process that is exiting: an
 * 'exit' handler cannot wait for promises. Used only when the normal teardown did not run.
 */
export function teardownNetconfLabSync(statePath: string): void {
  const file = LabStateFile.read(statePath);
  if (!file) return;
  const s = file.state;
  const pids = new Set(labStragglers(statePath));
  s.processes.filter((p) => processStartTime(p.pid) === p.startTime).forEach((p) => pids.add(p.pid));
  for (const ns of s.namespaces) {
    try {
      execFileSync(ipCommand(), ['netns', 'pids', ns], { encoding: 'utf8' }).split('\n').map(Number).filter((n) => n > 0).forEach((n) => pids.add(n));
    } catch {
      /* no such namespace */
    }
  }
  pids.forEach((pid) => kill(pid, 'SIGKILL'));
  for (const ns of s.namespaces) {
    try {
      execFileSync(ipCommand(), ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      /* already gone */
    }
  }
  for (const d of s.dirs) rmSync(d, { recursive: true, force: true });
  if (s.createdRunSshd) rmSync('/run/sshd', { recursive: true, force: true });
  rmSync(s.dir, { recursive: true, force: true });
}

/** Namespaces, folders and processes of lab `id` still on the host (tests assert this is empty). */
export async function netconfLabLeftovers(id: string, runDir: string): Promise<string[]> {
  const found: string[] = [];
  found.push(...(await run(ipCommand(), ['netns', 'list'])).split('\n').filter((l) => l.includes(id)));
  try {
    readdirSync(runDir);
    found.push(runDir);
  } catch {
    /* gone, as it should be */
  }
  for (const pid of parents().keys()) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1');
      if (pid !== process.pid && (cmd.includes(id) || env.includes(`FAULT_RELAY_LAB=${id}\0`))) found.push(`process ${pid}: ${cmd.trim()}`);
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}
