import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../agent/free-port';
import { errorText } from '../../core/error-body';

const run = promisify(execFile);

/** The distribution's PostgreSQL binaries (Debian: /usr/lib/postgresql/<major>/bin), newest first. */
export function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a));
  return majors.map((m) => join(root, m, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
}

export interface LocalPostgres {
  /** A superuser URL on loopback (no password: trust on 127.0.0.1 inside a throwaway cluster). */
  url: string;
  port: number;
  dataDir: string;
  /** A fresh database on this server; its URL. */
  createDatabase(name: string): Promise<string>;
  /** The server goes away (as a crashed or restarted database would), keeping its data. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** And comes back on the same port with the same data. */
  start(): Promise<void>;
  /** `pg_ctl restart`: every connection ends, and the server is back when this resolves. */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
  /** The same, synchronously, for an exiting process. */
  destroySync(): void;
}

/** PostgreSQL refuses to run as root: as root it runs as the `postgres` account the distribution's package creates. */
function runAs(bin: string) {
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? 'postgres' : userInfo().username;
  const as = (cmd: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]) : run(join(bin, cmd), args));
  return { asRoot, user, as };
}

async function ownedTempDir(prefix: string, asRoot: boolean): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  return dir;
}

async function initdb(as: ReturnType<typeof runAs>['as'], user: string, dataDir: string): Promise<void> {
  try {
    await as('initdb', ['-D', dataDir, '-U', user, '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  } catch (error) {
    throw new Error(`initdb failed: ${(error as { stderr?: string }).stderr ?? errorText(error)}`);
  }
}

/**
 * A freshly initialised cluster's data folder for `startLocalPostgres({ template })` to copy, in its
 * own temporary folder; the returned `remove` deletes it. For a test run that starts many servers.
 */
export async function createPostgresTemplate(prefix = 'fault-relay-pg-template-'): Promise<{ dataDir: string; remove(): void }> {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)');
  const { asRoot, user, as } = runAs(bin);
  const dir = await ownedTempDir(prefix, asRoot);
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    await initdb(as, user, join(dir, 'data'));
  } catch (error) {
    remove();
    throw error;
  }
  return { dataDir: join(dir, 'data'), remove };
}

/**
 * A throwaway PostgreSQL server: `initdb` in a temporary folder, then `pg_ctl`, on a free loopback
 * port (or a copy of `template`, a cluster `createPostgresTemplate` made). For tests and benches.
 */
export async function startLocalPostgres(opts: { prefix?: string; template?: string } = {}): Promise<LocalPostgres> {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)');
  const { asRoot, user, as } = runAs(bin);
  const dir = await ownedTempDir(opts.prefix ?? 'fault-relay-pg-', asRoot);
  const dataDir = join(dir, 'data');
  const port = await findFreePort();
  const pgCtl = (args: string[]) => as('pg_ctl', ['-D', dataDir, '-s', ...args]);
  try {
    // A copy of a cluster initdb made before is the same cluster, for a fraction of initdb's work.
    if (opts.template) await run('cp', ['-a', opts.template, dataDir]);
    else await initdb(as, user, dataDir);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  // Loopback only, its socket in its own folder, no fsync (throwaway data), quick shutdowns.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = async (action: 'start' | 'restart' = 'start', mode = 'fast') => {
    // The log file keeps the server's output out of pg_ctl's (whose pipe would stay open).
    await pgCtl(['-o', options, '-l', join(dir, 'server.log'), '-m', mode, '-w', '-t', '30', action]);
  };
  let running = false;
  const url = `postgresql://${encodeURIComponent(user)}@127.0.0.1:${port}/postgres`;
  await start();
  running = true;
  return {
    url,
    port,
    dataDir,
    async createDatabase(name) {
      await as('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', 'postgres', '-qAt', '-c', `CREATE DATABASE "${name.replace(/"/g, '')}"`]);
      return url.replace(/\/postgres$/, `/${encodeURIComponent(name)}`);
    },
    async stop(mode = 'fast') {
      if (!running) return;
      await pgCtl(['-m', mode, '-w', 'stop']);
      running = false;
    },
    async start() {
      if (running) return;
      await start();
      running = true;
    },
    async restart(mode = 'fast') {
      await start(running ? 'restart' : 'start', mode);
      running = true;
    },
    destroySync() {
      if (running) {
        try {
          execFileSync(asRoot ? 'runuser' : join(bin, 'pg_ctl'), [...(asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl')] : []), '-D', dataDir, '-s', '-m', 'immediate', '-w', 'stop'], { stdio: 'ignore' });
        } catch {
          /* already gone */
        }
      }
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
    async destroy() {
      if (running) await pgCtl(['-m', 'immediate', '-w', 'stop']).catch(() => {});
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
