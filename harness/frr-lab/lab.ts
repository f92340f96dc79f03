import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, openSync, closeSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { findFreePort } from '../../src/adapters/agent/free-port';
import { LAB_LOGIN_USER, writeLabAccounts } from './accounts';
import { HostCommandError, frrLabUnavailable, ipCommand, LabPrerequisiteError, run } from './host';
import { LabStateFile, processStartTime } from './state';
import { bgpdConf, logFileOf, planRouters, sshdConfig, staticdConf, vtyshConf, zebraConf, type LabRouter } from './topology';
import { teardownLab } from './teardown';
import { ospfdConf } from './ospf';
import { waitForEstablished } from './bgp-state';

export interface FrrLabRouter extends LabRouter {
  /** `127.0.0.1:port` of this router's sshd. */
  ssh: string;
  logFile: string;
}

export interface FrrLab {
  id: string;
  dir: string;
  routers: FrrLabRouter[];
  inventoryPath: string;
  knownHostsPath: string;
  /** The login's password, for the password-credential path (the generated inventory uses the key). */
  password: string;
  /** Runs lines in one vtysh on the router, from the host (the lab's own fault injection and checks). */
  vtysh(router: string, ...commands: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** What fault injection needs of a lab: its routers and a vtysh on each (a running lab, or one attached to from its description). */
export type FrrLabRouters = Pick<FrrLab, 'routers' | 'vtysh'>;

/** A lab another process started, from the routers it described (`npm run lab -- --frr inject`). */
export function attachFrrLab(routers: FrrLabRouter[]): FrrLabRouters {
  return {
    routers,
    vtysh(name, ...commands) {
      const r = routers.find((p) => p.name === name);
      if (!r) return Promise.reject(new Error(`no router ${name} in this lab (${routers.map((p) => p.name).join(', ')})`));
      return run('/usr/bin/vtysh', ['-N', r.namespace, ...commands.flatMap((c) => ['-c', c])]);
    },
  };
}

export interface StartFrrLabOptions {
  /** The lab's own folder: keys, per-router sshd files, inventory, known hosts and its state file. */
  dir: string;
  routers?: number;
  /** Progress lines for a person watching the lab start. */
  onStep?: (line: string) => void;
}

export const stateFileIn = (dir: string) => join(dir, 'state.json');

const FRR_GID = () => Number(readFileSync('/etc/group', 'utf8').match(/^frr:x:(\d+):/m)?.[1] ?? 0);
const FRR_UID = () => Number(readFileSync('/etc/passwd', 'utf8').match(/^frr:x:(\d+):/m)?.[1] ?? 0);
const FRRVTY_GID = () => Number(readFileSync('/etc/group', 'utf8').match(/^frrvty:x:(\d+):/m)?.[1] ?? 0);

/**
 * Starts N FRRouting routers in their own network namespaces, eBGP between neighbours, each with an
 * sshd on loopback whose login lands in that router's vtysh; writes an inventory and known-hosts file
 * for the device tool server, and waits until every BGP session is Established. Everything it creates
 * is recorded in `<dir>/state.json` first, so `stop()` (or `teardownLab` after a crash) removes it all.
 */
export async function startFrrLab(opts: StartFrrLabOptions): Promise<FrrLab> {
  const missing = frrLabUnavailable();
  if (missing) throw new LabPrerequisiteError(missing);
  const dir = resolve(opts.dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const statePath = stateFileIn(dir);
  if (existsSync(statePath)) throw new LabPrerequisiteError(`a lab is already up in ${dir} (or was killed): remove it with npm run lab -- --frr --down`);
  const id = `frl${randomBytes(2).toString('hex')}`;
  const plan = planRouters(id, opts.routers ?? 2);
  const state = LabStateFile.create(statePath, id, dir);
  const step = opts.onStep ?? (() => {});
  const ip = ipCommand();

  try {
    step(`creating ${plan.length} network namespaces and links`);
    await createNetwork(plan, state, ip);

    step('starting zebra, staticd, bgpd and ospfd on every router');
    const crashDirsBefore = listVarTmpFrr();
    for (const r of plan) await startDaemons(r, state, join(dir, r.name));
    const newCrashDirs = listVarTmpFrr().filter((d) => !crashDirsBefore.includes(d));
    state.record((s) => s.dirs.push(...newCrashDirs.map((d) => `/var/tmp/frr/${d}`)));

    step('starting an sshd per router (login lands in vtysh)');
    const { routers, knownHostsPath, inventoryPath, password } = await startSshds(plan, dir, state, id);

    step('waiting for every BGP session to be Established');
    const vtysh = (name: string, ...commands: string[]) => {
      const r = plan.find((p) => p.name === name);
      if (!r) throw new Error(`no router ${name} in this lab (${plan.map((p) => p.name).join(', ')})`);
      return run('/usr/bin/vtysh', ['-N', r.namespace, ...commands.flatMap((c) => ['-c', c])]);
    };
    await waitForEstablished(plan, vtysh);

    return {
      id,
      dir,
      routers,
      inventoryPath,
      knownHostsPath,
      password,
      vtysh,
      stop: async () => {
        await teardownLab(statePath);
      },
    };
  } catch (error) {
    await teardownLab(statePath).catch(() => {});
    throw error;
  }
}

/** Every router's namespace (and its customer VRF's), and the veth links between neighbours. */
async function createNetwork(plan: LabRouter[], state: LabStateFile, ip: string): Promise<void> {
  for (const r of plan) {
    state.record((s) => s.namespaces.push(r.namespace));
    await run(ip, ['netns', 'add', r.namespace]);
    await run(ip, ['-n', r.namespace, 'link', 'set', 'lo', 'up']);
    await run(ip, ['-n', r.namespace, 'addr', 'add', `${r.routerId}/32`, 'dev', 'lo']);
    await run(ip, ['netns', 'exec', r.namespace, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    if (r.vrf) {
      const vrfNs = r.vrf.namespace;
      state.record((s) => s.namespaces.push(vrfNs));
      await run(ip, ['netns', 'add', vrfNs]);
      await run(ip, ['-n', vrfNs, 'link', 'set', 'lo', 'up']);
    }
  }
  const [vrfA, vrfB] = plan.filter((r) => r.vrf).map((r) => r.vrf!);
  if (vrfA && vrfB) {
    await run(ip, ['link', 'add', vrfA.ifname, 'netns', vrfA.namespace, 'type', 'veth', 'peer', 'name', vrfB.ifname, 'netns', vrfB.namespace]);
    for (const v of [vrfA, vrfB]) {
      await run(ip, ['-n', v.namespace, 'addr', 'add', `${v.address}/30`, 'dev', v.ifname]);
      await run(ip, ['-n', v.namespace, 'link', 'set', v.ifname, 'up']);
    }
  }
  for (const r of plan) {
    for (const l of r.links) {
      const peer = plan.find((p) => p.name === l.peer)!;
      if (r.as > peer.as) continue; // each link once, from its lower end
      const back = peer.links.find((x) => x.peer === r.name)!;
      await run(ip, ['link', 'add', l.ifname, 'netns', r.namespace, 'type', 'veth', 'peer', 'name', back.ifname, 'netns', peer.namespace]);
      for (const [ns, link] of [[r.namespace, l], [peer.namespace, back]] as const) {
        await run(ip, ['-n', ns, 'addr', 'add', `${link.address}/30`, 'dev', link.ifname]);
        await run(ip, ['-n', ns, 'link', 'set', link.ifname, 'up']);
      }
    }
  }
}

/** An sshd per router whose login lands in its vtysh, and the inventory and known-hosts file the device tool server reads. */
async function startSshds(plan: LabRouter[], dir: string, state: LabStateFile, id: string): Promise<{ routers: FrrLabRouter[]; knownHostsPath: string; inventoryPath: string; password: string }> {
  const password = randomBytes(18).toString('base64url');
  const accounts = await writeLabAccounts(dir, password);
  const clientKey = join(dir, 'id_ed25519');
  await run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'fault-relay-lab', '-f', clientKey]);
  if (!existsSync('/run/sshd')) {
    state.record((s) => (s.createdRunSshd = true));
    mkdirSync('/run/sshd', { mode: 0o755 });
  }
  const routers: FrrLabRouter[] = [];
  const knownHosts: string[] = [];
  for (const r of plan) {
    const port = await findFreePort();
    const rdir = join(dir, r.name);
    mkdirSync(rdir, { recursive: true, mode: 0o700 });
    // sshd reads the key list as the login user, so it sits beside the router's FRR files (which
    // that user may read), not in the lab's private folder.
    const authorizedKeys = `/etc/frr/${r.namespace}/ssh_authorized_keys`;
    writeFileSync(authorizedKeys, readFileSync(`${clientKey}.pub`), { mode: 0o644 });
    const hostKey = join(rdir, 'ssh_host_ed25519_key');
    await run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', r.name, '-f', hostKey]);
    const config = join(rdir, 'sshd_config');
    writeFileSync(
      config,
      sshdConfig({
        port,
        hostKey,
        authorizedKeys,
        user: LAB_LOGIN_USER,
        forceCommand: `/usr/bin/vtysh -N ${r.namespace}`,
      }),
    );
    await startSshd(rdir, config, accounts, state, id);
    await waitForPort(port);
    const [type, key] = readFileSync(`${hostKey}.pub`, 'utf8').trim().split(' ');
    knownHosts.push(`[127.0.0.1]:${port} ${type} ${key}`);
    routers.push({ ...r, ssh: `127.0.0.1:${port}`, logFile: logFileOf(r) });
  }
  const knownHostsPath = join(dir, 'known_hosts');
  writeFileSync(knownHostsPath, `${knownHosts.join('\n')}\n`, { mode: 0o600 });
  const inventoryPath = join(dir, 'devices.yaml');
  writeFileSync(inventoryPath, inventoryYaml(routers, clientKey, knownHostsPath), { mode: 0o600 });
  return { routers, knownHostsPath, inventoryPath, password };
}

function listVarTmpFrr(): string[] {
  try {
    return readdirSync('/var/tmp/frr');
  } catch {
    return [];
  }
}

async function startDaemons(r: LabRouter, state: LabStateFile, rdir: string): Promise<void> {
  const confDir = `/etc/frr/${r.namespace}`;
  const runDir = `/var/run/frr/${r.namespace}`;
  const logDir = `/var/log/frr/${r.namespace}`;
  state.record((s) => s.dirs.push(confDir, runDir, logDir));
  const uid = FRR_UID();
  const gid = FRR_GID();
  for (const d of [confDir, runDir, logDir]) {
    mkdirSync(d, { recursive: true, mode: 0o755 });
    chownSync(d, uid, gid);
  }
  const files: Record<string, string> = { 'vtysh.conf': vtyshConf(r), 'zebra.conf': zebraConf(r), 'staticd.conf': staticdConf(r), 'bgpd.conf': bgpdConf(r), 'ospfd.conf': ospfdConf(r) };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(confDir, name), text, { mode: 0o640 });
    chownSync(join(confDir, name), uid, FRRVTY_GID());
  }
  // Log file created up front so the watcher can follow it from the first line.
  closeSync(openSync(logFileOf(r), 'a', 0o640));
  chownSync(logFileOf(r), uid, gid);
  state.record((s) => s.pidFiles.push(...['zebra', 'staticd', 'bgpd', 'ospfd'].map((d) => `${runDir}/${d}.pid`)));
  // zebra -n takes every file in /run/netns as a VRF: each router gets its own /run/netns holding only
  // its CUST-A (a tmpfs in its private mount namespace), or none at all, never the other labs' namespaces.
  const netnsView = join(rdir, 'netns');
  mkdirSync(netnsView, { recursive: true, mode: 0o700 });
  const view = [
    `mount -t tmpfs lab-netns-${r.namespace} ${netnsView}`,
    ...(r.vrf ? [`touch ${netnsView}/${r.vrf.name}`, `mount --bind /run/netns/${r.vrf.namespace} ${netnsView}/${r.vrf.name}`] : []),
    `mount --move ${netnsView} /run/netns`,
  ];
  const daemons = ['zebra', 'staticd', 'bgpd', 'ospfd'].map((d) => `/usr/lib/frr/${d} -d -N ${r.namespace}${d === 'zebra' ? ' -n' : ''} -A 127.0.0.1 -f ${confDir}/${d}.conf`);
  // Own UTS namespace: the router's hostname is its own, not the box's.
  await run(ipCommand(), ['netns', 'exec', r.namespace, '/usr/bin/unshare', '--mount', '--uts', '/bin/sh', '-ec', [`hostname ${r.name}`, ...view, ...daemons].join('\n')]);
}

async function startSshd(rdir: string, config: string, accounts: { passwd: string; group: string; shadow: string }, state: LabStateFile, labId: string): Promise<void> {
  const log = openSync(join(rdir, 'sshd.log'), 'a', 0o600);
  // A private mount namespace where the lab's account files replace the host's, then sshd in the
  // foreground (so its pid is the one recorded).
  const script = [
    `mount --bind ${accounts.passwd} /etc/passwd`,
    `mount --bind ${accounts.group} /etc/group`,
    `mount --bind ${accounts.shadow} /etc/shadow`,
    // The marker names the lab in sshd's process title, so `--down --all` finds it even without the state file.
    `exec /usr/sbin/sshd -D -e -f ${config} -o SetEnv=FAULT_RELAY_LAB=${labId}`,
  ].join('\n');
  const child = spawn('/usr/bin/unshare', ['--mount', '--propagation', 'private', '/bin/sh', '-ec', script], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  child.unref();
  const pid = child.pid;
  if (!pid) throw new HostCommandError('sshd did not start');
  const startTime = processStartTime(pid);
  if (startTime) state.record((s) => s.processes.push({ pid, startTime }));
  // A config error ends sshd at once: waitForPort then fails, and sshd.log says why.
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolvePort) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolvePort(true);
      });
      socket.once('error', () => resolvePort(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new HostCommandError(`sshd did not listen on 127.0.0.1:${port} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function inventoryYaml(routers: FrrLabRouter[], keyFile: string, knownHosts: string): string {
  return stringify({
    known_hosts: knownHosts,
    devices: routers.map((r) => {
      const [host, port] = r.ssh.split(':');
      // Each link's address, so the relay finds a plan's far end or peer from the alert (artifacts/plan-devices.ts).
      const addresses = Object.fromEntries(r.links.map((l) => [l.ifname, `${l.address}/30`]));
      return { name: r.name, host, port: Number(port), platform: 'frr', username: LAB_LOGIN_USER, credential: { key_file: keyFile }, addresses };
    }),
  });
}
