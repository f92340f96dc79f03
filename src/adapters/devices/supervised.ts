import { spawn } from 'node:child_process';
import { closeSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { errorBody } from '../../core/error-body';
import { generateDeviceServerToken, startDeviceServer, type RunningDeviceServer } from './server';
import { StateDirLockedError } from './state-lock';
import { writeTokenFile } from './token-file';

/** What a supervised server leaves in its state folder for a relay to find it: its address and process. */
export const SupervisedServerInfo = z.object({ pid: z.number().int().positive(), url: z.string().url(), inventory: z.string() });
export type SupervisedServerInfo = z.infer<typeof SupervisedServerInfo>;

/** What a server that could not start says on the ready pipe instead: a folder in use names its holder. */
export const SupervisedServerRefusal = z.object({ error: z.object({ code: z.string(), message: z.string(), pid: z.number().int().positive().optional() }) });
export type SupervisedServerRefusal = z.infer<typeof SupervisedServerRefusal>;

/** Started again for a relay still attached: pending changes keep their deadlines (see ProvisionalChanges.recover). */
export const RESUME_FLAG = '--resume-pending';

/** The files beside the change journal that name the running supervised server (the token one is 0600). */
export const supervisedFiles = (stateDir: string) => ({ info: join(stateDir, 'server.json'), token: join(stateDir, 'server.token') });

/** A server nobody attaches to after its start goes away after this long (when nothing is pending). */
export const FIRST_ATTACH_WAIT_MS = 60_000;

export interface SupervisedDeviceServer {
  server: RunningDeviceServer;
  /** Settles once the server has stopped by itself: no relay attached and nothing pending. */
  stopped: Promise<void>;
}

/**
 * The device server as the relay's dead-man's switch: a process of its own (its own session, so a
 * kill of the relay or of its whole process group does not reach it) that keeps every provisional
 * change's deadline and rolls it back by itself when no relay confirms it. Relays attach with a
 * long-lived `GET /attach`; their socket closing is how the server learns a relay is gone, however
 * it died. With no relay attached and nothing pending it removes its files and stops, so nothing
 * is left running. Its token is generated here and written 0600 to the state folder, never to a
 * command line or a log line.
 */
export async function runSupervisedDeviceServer(opts: {
  inventoryPath: string;
  stateDir: string;
  logger?: Logger;
  /** A pipe the starting relay reads `{pid,url}` from once this server answers; closed after. */
  readyFd?: number;
  firstAttachWaitMs?: number;
  recover?: 'rollback' | 'resume';
}): Promise<SupervisedDeviceServer> {
  const files = supervisedFiles(opts.stateDir);
  const token = generateDeviceServerToken();
  const attached = new Set<ServerResponse>();
  let exiting = false;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));

  const maybeExit = (why: string) => {
    if (exiting || attached.size > 0 || server.service.changes.pendingCount() > 0) return;
    exiting = true;
    // Removed before the listener closes: a relay that is refused next starts a new server, whose
    // files must not be the ones removed here.
    rmSync(files.info, { force: true });
    rmSync(files.token, { force: true });
    opts.logger?.info({ why }, 'supervised device server stopping: no relay attached and no change pending');
    void server.stop().finally(stop);
  };

  const attach = (_req: unknown, res: ServerResponse) => {
    if (exiting) return res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody('stopping', 'this device server is stopping: start a new one')));
    res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
    res.write(`${JSON.stringify({ pid: process.pid, pending: server.service.changes.pendingCount() })}\n`);
    attached.add(res);
    opts.logger?.info({ relays: attached.size }, 'a relay attached');
    res.on('close', () => {
      attached.delete(res);
      opts.logger?.info({ relays: attached.size, pending: server.service.changes.pendingCount() }, 'a relay detached');
      maybeExit('the last relay detached');
    });
  };

  const server = await startDeviceServer({ inventoryPath: opts.inventoryPath, host: '127.0.0.1', port: 0, token, stateDir: opts.stateDir, logger: opts.logger, attach, ...(opts.recover ? { recover: opts.recover } : {}) });
  server.service.changes.onIdle(() => maybeExit('the last pending change was decided'));
  writeTokenFile(files.token, token);
  const info: SupervisedServerInfo = { pid: process.pid, url: server.url, inventory: opts.inventoryPath };
  const tmp = `${files.info}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(info)}\n`, { mode: 0o600 });
  renameSync(tmp, files.info);
  if (opts.readyFd !== undefined) {
    writeSync(opts.readyFd, `${JSON.stringify(info)}\n`);
    closeSync(opts.readyFd);
  }
  opts.logger?.info({ pid: process.pid, devices: server.service.devices().map((d) => d.name) }, 'supervised device server ready');
  setTimeout(() => maybeExit('no relay attached after start'), opts.firstAttachWaitMs ?? FIRST_ATTACH_WAIT_MS);
  return { server, stopped };
}

/** Marks the second start (the server proper), after the first one has left it behind. */
const DETACHED_FLAG = '--detached-child';

/**
 * Starts the server proper as a new session and exits: its parent is then no longer the relay or the
 * tray, so a kill of their whole process tree (which follows parent links) does not find it either.
 * It inherits the ready pipe; the relay reads its line from there. An AppImage is started again as the
 * AppImage file, since this process's mount of it goes when this process does.
 */
function detachOnce(args: string[], readyFd: string | undefined, exit: (code: number) => void): void {
  const appImage = process.env.APPIMAGE;
  const command = appImage ?? process.execPath;
  // A packaged tray's argv[1] is already a flag; node and an unpackaged Electron name their script or app there.
  const rest = appImage ? process.argv.slice(1) : [...process.execArgv, ...process.argv.slice(1)];
  const fd = readyFd === undefined ? 'ignore' : Number(readyFd);
  const child = spawn(command, [...rest, DETACHED_FLAG], { detached: true, stdio: ['ignore', 'inherit', 'inherit', fd] });
  child.once('error', () => exit(1));
  child.once('spawn', () => {
    child.unref();
    exit(0);
  });
}

/** The flag that makes `npm run devices` (and the tray's own executable) run as a supervised server. */
export const SUPERVISED_FLAG = '--supervised';

/**
 * `… --supervised --inventory FILE --state-dir DIR [--ready-fd N]`: runs until the server stops by
 * itself or is sent SIGTERM/SIGINT (then pending changes are rolled back), then calls `exit`.
 */
export async function supervisedMain(args: string[], logger: Logger, exit: (code: number) => void): Promise<void> {
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const inventoryPath = value('--inventory');
  const stateDir = value('--state-dir');
  const readyFd = value('--ready-fd');
  if (!inventoryPath || !stateDir) {
    logger.fatal('a supervised device server needs --inventory FILE and --state-dir DIR');
    return exit(64);
  }
  if (!args.includes(DETACHED_FLAG)) return detachOnce(args, readyFd, exit);
  let running: SupervisedDeviceServer;
  try {
    running = await runSupervisedDeviceServer({ inventoryPath, stateDir, logger, recover: args.includes(RESUME_FLAG) ? 'resume' : 'rollback', ...(readyFd ? { readyFd: Number(readyFd) } : {}) });
  } catch (error) {
    if (!(error instanceof StateDirLockedError)) throw error;
    // The starting relay learns who holds the folder (it attaches to that server); nothing here was touched.
    logger.error({ pid: error.pid, dir: error.dir }, error.message);
    const refusal: SupervisedServerRefusal = { error: { code: error.code, message: error.message, ...(error.pid ? { pid: error.pid } : {}) } };
    if (readyFd) writeSync(Number(readyFd), `${JSON.stringify(refusal)}\n`);
    return exit(75);
  }
  const files = supervisedFiles(stateDir);
  const onSignal = (signal: string) => {
    logger.info({ signal }, 'supervised device server stopping on a signal: pending changes are rolled back');
    rmSync(files.info, { force: true });
    rmSync(files.token, { force: true });
    // Rolled back before the connections close: a relay waiting for this server to go starts the next
    // one on the same journal only once nothing here is still putting a device back.
    void running.server.service.changes
      .close()
      .then(() => running.server.stop())
      .finally(() => exit(0));
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  await running.stopped;
  exit(0);
}
