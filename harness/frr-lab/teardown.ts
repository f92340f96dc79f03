import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname } from 'node:path';
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
 * The pid in an FRR daemon's pid file (`/var/run/frr/<namespace>/<daemon>.pid`), only while that pid is
 * still that router's daemon: a lab killed with its daemons leaves the files, and by the time `--down`
 * runs the pid may belong to anything else on the machine, which must not be signalled.
 */
export function daemonPidFrom(pidFile: string): number | undefined {
  const namespace = basename(dirname(pidFile));
  const daemon = basename(pidFile, '.pid');
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    if (!(pid > 0)) return undefined;
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const ns = args.indexOf('-N');
    return basename(args[0] ?? '') === daemon && ns >= 0 && args[ns + 1] === namespace ? pid : undefined;
  } catch {
    return undefined; // no file, or no such process
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
  const daemons = s.pidFiles.flatMap((f) => daemonPidFrom(f) ?? []);
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

const LAB_NAME = /^frl[0-9a-f]{4}-R\d+(-CUST-A)?$/;

/**
 * Removes every FRR lab on this machine, recorded or not (a lab whose state file is gone, e.g. its
 * folder was deleted while it ran): namespaces and FRR folders named like a lab's, the daemons of
 * those pathspaces, and the sshd processes whose login lands in one of them. `only` (a lab id,
 * `frl1a2b`) sweeps that lab alone, leaving every other lab on the machine running.
 */
export async function sweepAllLabs(only?: string): Promise<string[]> {
  const ours = (name: string) => LAB_NAME.test(name) && (only === undefined || name.startsWith(`${only}-`));
  const ip = ipCommand();
  const removed: string[] = [];
  const namespaces = (await run(ip, ['netns', 'list']).catch(() => ''))
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter(ours);
  const dirs = ['/etc/frr', '/var/run/frr', '/var/log/frr'].flatMap((root) => {
    try {
      return readdirSync(root).filter(ours).map((n) => `${root}/${n}`);
    } catch {
      return [];
    }
  });
  const pids: number[] = [];
  for (const d of dirs.filter((x) => x.startsWith('/var/run/frr/'))) {
    for (const f of readdirSync(d).filter((n) => n.endsWith('.pid'))) {
      const pid = daemonPidFrom(`${d}/${f}`);
      if (pid) pids.push(pid);
    }
  }
  for (const ns of namespaces) {
    const out = await run(ip, ['netns', 'pids', ns]).catch(() => '');
    pids.push(...out.split('\n').map(Number).filter((n) => n > 0));
  }
  // The labs' sshd listeners: marked with FAULT_RELAY_LAB on their command line (sshd shows it in its
  // process title), or, for one whose folder is gone, our exact flags and a lab's config path.
  for (const entry of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const orphan = /sshd -D -e -f (\S+\/R\d+\/sshd_config)/.exec(title);
      const marked = only === undefined ? /FAULT_RELAY_LAB=frl[0-9a-f]{4}/.test(title) : title.includes(`FAULT_RELAY_LAB=${only}`);
      // An orphan names no lab: only a sweep of every lab takes it.
      if (marked || (only === undefined && orphan && !existsSync(orphan[1]!))) pids.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  const unique = [...new Set(pids)];
  await stopPids(unique);
  if (unique.length) removed.push(`${unique.length} processes`);
  for (const ns of namespaces) if (await run(ip, ['netns', 'del', ns]).then(() => true, () => false)) removed.push(`namespace ${ns}`);
  for (const d of dirs) {
    rmSync(d, { recursive: true, force: true });
    removed.push(d);
  }
  return removed;
}
