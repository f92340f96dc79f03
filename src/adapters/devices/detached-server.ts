import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { SECRET_KEYS } from '../../config/schema';
import { readHolder, StateDirLockedError } from './state-lock';
import { RESUME_FLAG, SUPERVISED_FLAG, SupervisedServerInfo, SupervisedServerRefusal, supervisedFiles } from './supervised';

/** How to start a supervised device server: `npm run relay` runs node on scripts/devices.ts, the tray its own executable. */
export interface DeviceServerLaunch {
  command: string;
  args: string[];
  /** Added to the child's environment (never a secret: it would show in /proc/PID/environ). */
  env?: Record<string, string>;
  cwd?: string;
}

const projectRoot = resolve(import.meta.dirname, '../../..');

/** `node --import tsx scripts/devices.ts --supervised`, from this checkout. */
export function nodeDeviceServerLaunch(): DeviceServerLaunch {
  return { command: process.execPath, args: ['--import', 'tsx', resolve(projectRoot, 'scripts/devices.ts'), SUPERVISED_FLAG], cwd: projectRoot };
}

/** What the server needs from the relay's environment: the devices' own credential variables, none of the relay's secrets. */
export const DEVICE_SERVER_OMIT_ENV: readonly string[] = [...SECRET_KEYS, 'DEVICE_MCP_TOKEN', 'DEVICE_SERVER_TOKEN', 'NODE_OPTIONS'];

export interface AttachedDeviceServer {
  url: string;
  mcpUrl: string;
  token: string;
  pid: number;
  /** True when a server left running (by a relay before this one) was attached to. */
  adopted: boolean;
  /** Settles if the server goes away while this relay is attached. */
  lost: Promise<void>;
  /** Lets go of the server: it keeps any pending change's deadline and stops once none is left. */
  detach(): void;
}

interface Attachment {
  lost: Promise<void>;
  detach(): void;
}

/** Holds `GET /attach` open: the server counts this relay as present while the socket lives. */
function attachTo(url: string, token: string): Promise<Attachment | undefined> {
  return new Promise((resolveAttach) => {
    let req: ClientRequest | undefined;
    let detaching = false;
    try {
      req = request(`${url}/attach`, { method: 'GET', headers: { authorization: `Bearer ${token}` } });
    } catch {
      return resolveAttach(undefined);
    }
    req.once('error', () => resolveAttach(undefined));
    req.once('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return resolveAttach(undefined);
      }
      res.resume();
      const lost = new Promise<void>((resolveLost) => res.once('close', () => !detaching && resolveLost()));
      resolveAttach({ lost, detach: () => ((detaching = true), req.destroy()) });
    });
    req.end();
  });
}

function readServerFiles(stateDir: string): { info: SupervisedServerInfo; token: string } | undefined {
  const files = supervisedFiles(stateDir);
  try {
    const info = SupervisedServerInfo.parse(JSON.parse(readFileSync(files.info, 'utf8')));
    return { info, token: readFileSync(files.token, 'utf8').trim() };
  } catch {
    return undefined;
  }
}

type Found = Omit<AttachedDeviceServer, 'adopted'> & { inventory: string };

async function adopt(stateDir: string): Promise<Found | undefined> {
  const found = readServerFiles(stateDir);
  if (!found) return undefined;
  const attached = await attachTo(found.info.url, found.token);
  if (!attached) return undefined;
  return { url: found.info.url, mcpUrl: `${found.info.url}/mcp`, token: found.token, pid: found.info.pid, inventory: found.info.inventory, ...attached };
}

/** Starts the server in a session of its own and waits for its `{pid,url}` line (or its exit). */
async function launch(opts: LaunchOptions): Promise<SupervisedServerInfo | SupervisedServerRefusal> {
  mkdirSync(dirname(opts.logFile), { recursive: true });
  const out = openSync(opts.logFile, 'a', 0o600);
  const env = Object.fromEntries(Object.entries(opts.env).filter(([k, v]) => v !== undefined && !DEVICE_SERVER_OMIT_ENV.includes(k)));
  const args = [...opts.launch.args, '--inventory', opts.inventoryPath, '--state-dir', opts.stateDir, '--ready-fd', '3', ...(opts.resume ? [RESUME_FLAG] : [])];
  const child = spawn(opts.launch.command, args, {
    // Its own session and process group: a kill of the relay's group (or a closed terminal) does not reach it.
    detached: true,
    stdio: ['ignore', out, out, 'pipe'],
    env: { ...env, ...opts.launch.env },
    ...(opts.launch.cwd ? { cwd: opts.launch.cwd } : {}),
  });
  closeSync(out);
  const ready = child.stdio[3] as Readable;
  try {
    return await new Promise<SupervisedServerInfo | SupervisedServerRefusal>((resolveReady, reject) => {
      const failed = (why: string) => new Error(`the device tool server ${why} before it was ready; its log is ${opts.logFile}`);
      child.once('error', reject);
      // The first process leaves the server proper behind and exits 0; anything else is a failure.
      child.once('exit', (code, signal) => (code !== 0 ? reject(failed(`exited (${signal ?? `code ${code}`})`)) : undefined));
      const lines = createInterface({ input: ready });
      lines.once('line', (line) => {
        try {
          const said: unknown = JSON.parse(line);
          resolveReady(SupervisedServerRefusal.safeParse(said).data ?? SupervisedServerInfo.parse(said));
        } catch (error) {
          reject(error);
        }
      });
      // Every holder of the pipe is gone without a word: the server proper died before it answered.
      lines.once('close', () => reject(failed('exited')));
    });
  } finally {
    ready.destroy();
    child.removeAllListeners('exit');
    child.unref();
  }
}

/**
 * The relay's device tool server as a separate, supervised process: the one already running for this
 * state folder (left by a relay that died, still keeping a pending change's deadline) is attached to,
 * else a new one is started detached. Either way it outlives this relay and rolls back by the
 * deadline on its own what nobody confirms.
 */
interface LaunchOptions {
  launch: DeviceServerLaunch;
  inventoryPath: string;
  stateDir: string;
  logFile: string;
  env: NodeJS.ProcessEnv;
  /** Started again for a relay that is still attached: pending changes keep their deadlines. */
  resume?: boolean;
}

/** How long a start waits for the server that holds the folder to answer (or go) before it gives up. */
export const LOCK_WAIT_MS = 15_000;
const LOCK_POLL_MS = 100;

/**
 * One server per state folder: another relay (or tray) may have started one a moment before this one
 * did. Its lock answers the race: the loser attaches to the winner once that one's files are written,
 * and a folder held by something it cannot attach to (an in-process relay, a server stuck stopping)
 * is refused naming the folder and the holder's pid.
 */
export async function openDetachedDeviceServer(opts: LaunchOptions & { logger: Logger }): Promise<AttachedDeviceServer> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const opened = await openOnce(opts);
    if (!('error' in opened)) return opened;
    const holder = opened.error.pid ?? readHolder(opts.stateDir)?.pid;
    if (Date.now() > until) throw new StateDirLockedError(opts.stateDir, holder);
    opts.logger.info({ pid: holder }, 'another device tool server holds the change journal: attaching to it once it answers');
    await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
}

async function openOnce(opts: LaunchOptions & { logger: Logger }): Promise<AttachedDeviceServer | SupervisedServerRefusal> {
  const running = await adopt(opts.stateDir);
  if (running && running.inventory === opts.inventoryPath) {
    const { inventory: _inventory, ...server } = running;
    return { ...server, adopted: true };
  }
  if (running) {
    // Started on another inventory (the setting changed): it is told to stop, which rolls back what it
    // holds, and the new one starts on the same journal only once it is gone (its socket closes last).
    opts.logger.warn({ pid: running.pid }, 'the running device tool server uses another inventory: stopping it (its pending changes are rolled back) and starting a new one');
    process.kill(running.pid, 'SIGTERM');
    await running.lost;
  } else if (existsSync(supervisedFiles(opts.stateDir).info)) {
    opts.logger.info('the device tool server named in the state folder is gone or stopping: starting a new one');
  }
  const info = await launch(opts);
  if ('error' in info) return info;
  const started = await adopt(opts.stateDir);
  if (!started || started.pid !== info.pid) throw new Error(`the device tool server (pid ${info.pid}) started but could not be attached to; its log is ${opts.logFile}`);
  const { inventory: _inventory, ...server } = started;
  return { ...server, adopted: false };
}
