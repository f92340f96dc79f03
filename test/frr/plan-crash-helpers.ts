import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { FrrLab } from '../../harness/frr-lab/lab';

/**
 * What the plan tests that kill a process mid-plan read of a lab router and a device server's
 * journal, to act at one precise point of a change (never after a sleep).
 */

const pidOf = (lab: Pick<FrrLab, 'routers'>, router: string, daemon: string) => {
  const namespace = lab.routers.find((r) => r.name === router)!.namespace;
  return Number(readFileSync(`/var/run/frr/${namespace}/${daemon}.pid`, 'utf8').trim());
};

/** The socket inodes a process holds. */
function socketsOf(pid: number | string): Map<string, string> {
  const fds = new Map<string, string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) fds.set(fd, m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return fds;
}

/** The descriptor a process is blocked reading (read, recvfrom, recvmsg), if it is. */
function readingFd(pid: string): string | undefined {
  try {
    const [call, fd] = readFileSync(`/proc/${pid}/syscall`, 'utf8').split(' ');
    return call === '0' || call === '45' || call === '47' ? String(Number(fd)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a vtysh on `router` (a login's, such as the device server's session) is blocked waiting
 * for `daemon`'s answer: reading the socket whose other end `daemon` holds. vtysh asks the daemons
 * one after the other, so one waiting on staticd has had bgpd's answer already.
 */
export function vtyshWaitsOn(lab: Pick<FrrLab, 'routers'>, router: string, daemon: string): boolean {
  const namespace = lab.routers.find((r) => r.name === router)!.namespace;
  const theirs = new Set(socketsOf(pidOf(lab, router, daemon)).values());
  const peers = new Map<string, string>();
  for (const line of execFileSync('/usr/bin/ss', ['-xHn']).toString().split('\n')) {
    const f = line.trim().split(/\s+/);
    // u_str ESTAB recv send local-path local-inode peer-path peer-inode
    if (f.length >= 8) peers.set(f[5]!, f[7]!);
  }
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (argv[0] !== '/usr/bin/vtysh' || !argv.includes(namespace)) continue;
    const fd = readingFd(pid);
    const inode = fd && fd !== '0' ? socketsOf(pid).get(fd) : undefined;
    if (inode && theirs.has(peers.get(inode) ?? '')) return true;
  }
  return false;
}

/** The device server's journal entry still pending for `device`, if there is one. */
export function journaledFor(journal: string, device: string): { change_id: string; deadline: string } | undefined {
  for (const name of readdirSync(journal).filter((n) => /^pending-[\w-]+\.json$/.test(n))) {
    try {
      const entry = JSON.parse(readFileSync(join(journal, name), 'utf8')) as { change_id: string; device: string; deadline: string };
      if (entry.device === device) return entry;
    } catch {
      // being written (it is renamed into place whole, so this is a leftover temporary name)
    }
  }
  return undefined;
}

/** Polls `read` until it gives a value; the test's timeout bounds it (nothing is pushed to a test). */
export async function until<T>(read: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const v = await read();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}
