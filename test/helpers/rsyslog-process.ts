import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { atExit } from './at-exit';
import { waitUntil } from './opencode';
import { tempDir } from './temp-dir';

const BINARY = '/usr/sbin/rsyslogd';
const GTLS = '/usr/lib/x86_64-linux-gnu/rsyslog/lmnsd_gtls.so';
const IMRELP = '/usr/lib/x86_64-linux-gnu/rsyslog/imrelp.so';

/** Why the real-rsyslog tests cannot run here, or undefined when they can (CI installs it: .ci/run). */
export const noRsyslog = existsSync(BINARY) && spawnSync(BINARY, ['-v'], { stdio: 'ignore' }).status === 0 ? undefined : 'rsyslog is not installed (apt-get install -y rsyslog rsyslog-gnutls): the syslog tests are skipped';
export const noRsyslogTls = noRsyslog ?? (existsSync(GTLS) ? undefined : 'rsyslog-gnutls is not installed: the syslog-over-TLS test is skipped');
export const noRsyslogRelp = noRsyslog ?? (existsSync(IMRELP) ? undefined : 'rsyslog-relp is not installed (apt-get install -y rsyslog-relp): the RELP tests are skipped');

/** A test CA and a server certificate for 127.0.0.1 signed by it, made by openssl in a temp folder. */
export function makeTestCa(dir: string) {
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=fault-relay test CA', '-keyout', file('ca.key'), '-out', file('ca.pem'));
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', file('server.key'), '-out', file('server.csr'));
  writeFileSync(file('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-days', '1', '-extfile', file('ext.cnf'), '-out', file('server.pem'));
  return { ca: file('ca.pem'), cert: file('server.pem'), key: file('server.key') };
}

/** Whether something accepts a TCP connection on the loopback port (closed at once: rsyslog reads an empty stream). */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export interface LocalRsyslog {
  port: number;
  /** Its folder (config, output): give it to a restarted rsyslog to keep writing the same file. */
  dir: string;
  /** kill -9: whatever it held and had not written is gone. */
  kill(): Promise<void>;
  /** What rsyslog wrote, one received message per line in RFC 5424 form (its SyslogProtocol23 template). */
  lines(): string[];
  stop(): Promise<void>;
}

/**
 * A real rsyslogd in the foreground with only imtcp (optionally over its gtls driver) on a free
 * loopback port, writing every message it receives to a file the test reads. Its config, work
 * folder, pid file and output are in a temp folder removed with the test.
 */
export async function startRsyslog(opts: { tls?: { ca: string; cert: string; key: string }; port?: number; relp?: boolean; dir?: string } = {}): Promise<LocalRsyslog> {
  if (noRsyslog) throw new Error(noRsyslog);
  if (opts.relp && !opts.port) throw new Error('imrelp needs a given port');
  const dir = opts.dir ?? tempDir('rsyslog-');
  const out = join(dir, 'received.log');
  const portFile = join(dir, 'port');
  const tls = opts.tls;
  // RELP (imrelp) answers once the message is handed on: a direct queue writes it to the file first.
  const input = opts.relp
    ? [`module(load="imrelp")`, `input(type="imrelp" address="127.0.0.1" port="${opts.port}" ruleset="audit")`]
    : [`module(load="imtcp"${tls ? ' streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon"' : ''})`, `input(type="imtcp" address="127.0.0.1" port="${opts.port ?? 0}" listenPortFileName="${portFile}" ruleset="audit")`];
  const conf = [
    `global(workDirectory="${dir}"${tls ? ` defaultNetstreamDriver="gtls" defaultNetstreamDriverCAFile="${tls.ca}" defaultNetstreamDriverCertFile="${tls.cert}" defaultNetstreamDriverKeyFile="${tls.key}"` : ''})`,
    ...input,
    `ruleset(name="audit"${opts.relp ? ' queue.type="Direct"' : ''}) { action(type="omfile" file="${out}" template="RSYSLOG_SyslogProtocol23Format") }`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'rsyslog.conf'), conf);
  const child: ChildProcess = spawn(BINARY, ['-n', '-f', join(dir, 'rsyslog.conf'), '-i', join(dir, 'rsyslog.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: unknown) => (output = (output + String(chunk)).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let gone = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => ((gone = true), resolve())));
  atExit(() => child.kill('SIGKILL'));
  await waitUntil(
    async () => {
      if (gone) throw new Error(`rsyslogd exited: ${output}`);
      // rsyslog writes the port file only for a port it chose; a given port is tried instead.
      if (opts.port) return accepts(opts.port);
      return existsSync(portFile) && /^\d+\s*$/.test(readFileSync(portFile, 'utf8')) && Number(readFileSync(portFile, 'utf8')) > 0;
    },
    'rsyslogd is listening',
    { timeoutMs: 30_000 },
  );
  return {
    port: opts.port ?? Number(readFileSync(portFile, 'utf8')),
    dir,
    async kill() {
      if (!gone) child.kill('SIGKILL');
      await exited;
    },
    lines: () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []),
    async stop() {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
  };
}
