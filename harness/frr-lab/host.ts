import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** A host command that failed, with what it printed: the lab's errors name the command and the reason. */
export class HostCommandError extends Error {}

/** The lab cannot run on this machine; the message is one line naming what is missing and how to get it. */
export class LabPrerequisiteError extends Error {}

export function run(file: string, args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { timeout: opts.timeoutMs ?? 20_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const why = String(stderr).trim().split('\n').slice(-3).join(' ') || error.message;
        reject(new HostCommandError(`${file} ${args.join(' ')}: ${why}`));
      } else resolve(String(stdout));
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

const REQUIRED: Array<[path: string, pkg: string]> = [
  ['/usr/lib/frr/zebra', 'frr'],
  ['/usr/lib/frr/bgpd', 'frr'],
  ['/usr/lib/frr/staticd', 'frr'],
  ['/usr/lib/frr/ospfd', 'frr'],
  ['/usr/bin/vtysh', 'frr'],
  ['/usr/lib/frr/frr-reload.py', 'frr'],
  ['/usr/sbin/sshd', 'openssh-server'],
  ['/usr/bin/ssh-keygen', 'openssh-client'],
  ['/usr/bin/openssl', 'openssl'],
  ['/usr/bin/unshare', 'util-linux'],
];

const IP_PATHS = ['/usr/sbin/ip', '/usr/bin/ip', '/sbin/ip', '/bin/ip'];

export const ipCommand = () => IP_PATHS.find((p) => executable(p)) ?? 'ip';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the FRR lab cannot run here, in one line, or undefined when it can. The lab creates network
 * namespaces and starts FRR's daemons and sshd, so it needs root and those packages.
 */
export function frrLabUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'the FRR lab needs Linux (network namespaces)';
  if (process.getuid?.() !== 0) return 'the FRR lab needs root (it creates network namespaces and starts FRR and sshd): run it with sudo';
  const missing = new Set<string>();
  for (const [path, pkg] of REQUIRED) if (!executable(path)) missing.add(pkg);
  if (!IP_PATHS.some(executable)) missing.add('iproute2');
  if (missing.size > 0) return `the FRR lab needs ${[...missing].join(', ')}: apt-get install -y ${[...missing].join(' ')}`;
  return undefined;
}
