import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { findFreePort } from '../../src/adapters/agent/free-port';
import { LAB_LOGIN_USER, writeLabAccounts } from '../frr-lab/accounts';
import { HostCommandError, ipCommand, LabPrerequisiteError, run } from '../frr-lab/host';
import { LabStateFile, processStartTime } from '../frr-lab/state';
import { LAB_YANG, NETCONFD, netconfdArgs, netconfLabUnavailable, planNode, sshdConfig, STARTUP_CONFIG, type NetconfNodePlan } from './plan';
import { teardownNetconfLab } from './teardown';

export interface NetconfLab {
  id: string;
  dir: string;
  node: NetconfNodePlan;
  /** `127.0.0.1:port` of the node's sshd. */
  ssh: string;
  statePath: string;
  inventoryPath: string;
  knownHostsPath: string;
  clientKey: string;
  stop(): Promise<void>;
}

export const netconfStateFileIn = (dir: string) => join(dir, 'state.json');

/**
 * Starts one NETCONF device: netconfd (`--target=candidate`: :candidate, :confirmed-commit 1.0/1.1,
 * :validate) in its own network namespace, and an sshd on 127.0.0.1 whose `Subsystem netconf` runs
 * Debian's netconf-subsystem into it (through netconfd's UNIX socket, which a network namespace does
 * not separate). Writes an inventory (`platform: netconf`) and known-hosts file. Everything it makes
 * is recorded in `<dir>/state.json` before it is made, so `stop()` (or `teardownNetconfLab` after a
 * crash) removes it all, as the FRR lab does.
 */
export async function startNetconfLab(opts: { dir: string; confirmTimeoutS?: number }): Promise<NetconfLab> {
  const missing = netconfLabUnavailable();
  if (missing) throw new LabPrerequisiteError(missing);
  const dir = resolve(opts.dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const statePath = netconfStateFileIn(dir);
  if (existsSync(statePath)) throw new LabPrerequisiteError(`a NETCONF lab is already up in ${dir} (or was killed): remove it with teardownNetconfLab`);
  const id = `ncl${randomBytes(2).toString('hex')}`;
  const state = LabStateFile.create(statePath, id, dir);
  try {
    const node = planNode(id, dir, await findFreePort(), LAB_LOGIN_USER);
    state.record((s) => s.namespaces.push(node.namespace));
    await run(ipCommand(), ['netns', 'add', node.namespace]);
    await run(ipCommand(), ['-n', node.namespace, 'link', 'set', 'lo', 'up']);

    state.record((s) => s.dirs.push(node.runDir));
    // The login user reaches the socket and its key list here; the lab's own folder stays root-only.
    mkdirSync(node.runDir, { mode: 0o755 });
    mkdirSync(join(dir, 'modules'), { mode: 0o700 });
    mkdirSync(join(dir, 'home'), { mode: 0o700 });
    writeFileSync(join(dir, 'modules', 'fault-relay-lab-bgp.yang'), LAB_YANG);
    writeFileSync(join(dir, 'startup-cfg.xml'), STARTUP_CONFIG);
    await startNetconfd(node, state);

    const accounts = await writeLabAccounts(dir, randomBytes(18).toString('base64url'));
    const clientKey = join(dir, 'id_ed25519');
    const hostKey = join(dir, 'ssh_host_ed25519_key');
    await run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'fault-relay-netconf-lab', '-f', clientKey]);
    await run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', node.name, '-f', hostKey]);
    writeFileSync(join(node.runDir, 'authorized_keys'), readFileSync(`${clientKey}.pub`), { mode: 0o644 });
    if (!existsSync('/run/sshd')) {
      state.record((s) => (s.createdRunSshd = true));
      mkdirSync('/run/sshd', { mode: 0o755 });
    }
    const config = join(dir, 'sshd_config');
    writeFileSync(config, sshdConfig(node, hostKey));
    startDetached('sshd', state, dir, '/usr/bin/unshare', [
      '--mount',
      '--propagation',
      'private',
      '/bin/sh',
      '-ec',
      [
        // The login user exists only in sshd's own mount namespace (the FRR lab's account files).
        `mount --bind ${accounts.passwd} /etc/passwd`,
        `mount --bind ${accounts.group} /etc/group`,
        `mount --bind ${accounts.shadow} /etc/shadow`,
        // The marker reaches every session's environment: teardown finds sessions by it.
        `exec /usr/sbin/sshd -D -e -f ${config} -o SetEnv=FAULT_RELAY_LAB=${id}`,
      ].join('\n'),
    ]);
    await waitFor(() => canConnect(node.sshPort), `sshd on 127.0.0.1:${node.sshPort}`, join(dir, 'sshd.out'));

    const [type, key] = readFileSync(`${hostKey}.pub`, 'utf8').trim().split(' ');
    const knownHostsPath = join(dir, 'known_hosts');
    writeFileSync(knownHostsPath, `[127.0.0.1]:${node.sshPort} ${type} ${key}\n`, { mode: 0o600 });
    const inventoryPath = join(dir, 'devices.yaml');
    const device = { name: node.name, host: '127.0.0.1', port: node.sshPort, platform: 'netconf', username: node.user, credential: { key_file: clientKey } };
    writeFileSync(inventoryPath, stringify({ known_hosts: knownHostsPath, devices: [{ ...device, ...(opts.confirmTimeoutS ? { confirm_timeout_s: opts.confirmTimeoutS } : {}) }] }), { mode: 0o600 });
    return { id, dir, node, ssh: `127.0.0.1:${node.sshPort}`, statePath, inventoryPath, knownHostsPath, clientKey, stop: async () => void (await teardownNetconfLab(statePath)) };
  } catch (error) {
    await teardownNetconfLab(statePath).catch(() => {});
    throw error;
  }
}

/**
 * netconfd in the node's network namespace, in a private mount namespace whose root home is the
 * lab's `home` folder: yuma123 keeps files in `~/.yuma` of the account it runs as (found from the
 * password database, not $HOME), and they must land in the lab, not in the host's /root.
 */
async function startNetconfd(node: NetconfNodePlan, state: LabStateFile): Promise<void> {
  const rootHome = /^root:[^:]*:0:\d+:[^:]*:([^:]+):/m.exec(readFileSync('/etc/passwd', 'utf8'))?.[1] ?? '/root';
  const args = netconfdArgs(node).map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  startDetached('netconfd', state, node.dir, ipCommand(), [
    'netns',
    'exec',
    node.namespace,
    '/usr/bin/unshare',
    '--mount',
    '--propagation',
    'private',
    '/bin/sh',
    '-ec',
    `mount --bind ${node.dir}/home ${rootHome}\nexec ${NETCONFD} ${args}`,
  ]);
  await waitFor(() => Promise.resolve(existsSync(node.socket)), `netconfd's socket ${node.socket}`, join(node.dir, 'netconfd.log'));
}

/** Starts a long-lived process whose pid (after its execs) is the daemon's, and records it. */
function startDetached(name: string, state: LabStateFile, dir: string, file: string, args: string[]): void {
  const log = openSync(join(dir, `${name}.out`), 'a', 0o600);
  const child = spawn(file, args, { detached: true, stdio: ['ignore', log, log], cwd: dir });
  closeSync(log);
  child.unref();
  if (!child.pid) throw new HostCommandError(`${name} did not start`);
  const pid = child.pid;
  const startTime = processStartTime(pid);
  if (startTime) state.record((s) => s.processes.push({ pid, startTime }));
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });
}

/** Start-up readiness only (a daemon coming up), bounded; a daemon that died says why from its log. */
async function waitFor(ready: () => Promise<boolean>, what: string, log: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) {
      const tail = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-3).join(' | ') : '';
      throw new HostCommandError(`${what} not ready within ${timeoutMs / 1000} s${tail ? `: ${tail}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
