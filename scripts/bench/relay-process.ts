/**
 * `npm run relay` for npm run bench:intake: src/relay/main.ts in a node process of its own, as the
 * npm script runs it once its renderer build is done (the build ends before the relay listens, so it
 * is not on any alert's path), with the relay's default logging (LOG_LEVEL info, JSON lines on
 * stdout). Its output goes to a file, as a service manager or `docker logs` would keep it: the bench
 * process does not read it while it measures, so reading it costs the measured relay nothing.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { findFreePort } from '../../src/adapters/agent/free-port';

export interface RelayProcess {
  url: string;
  pid: number;
  /** Where its stdout and stderr went. */
  logFile: string;
  /** SIGTERM (the relay's own clean stop), SIGKILL if it is not gone within 10 s. */
  stop(): Promise<void>;
}

const repoRoot = resolve(import.meta.dirname, '../..');

/** `env` names the runtime (AGENT_URL): the bench's, shared with its baseline. */
export async function startRelayProcess(opts: { env: Record<string, string> & { AGENT_URL: string }; dir: string }): Promise<RelayProcess> {
  const logFile = join(opts.dir, 'relay-process.log');
  const out = openSync(logFile, 'a');
  // A port chosen here: with LOG_LEVEL silent there is no "relay listening" line to read it from.
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, INGEST_PORT: String(port), RELAY_HOST: '127.0.0.1', ...opts.env };
  // Its default, unless the bench was asked for another level.
  if (!opts.env.LOG_LEVEL) delete env.LOG_LEVEL;
  // BENCH_CPU_PROF=<dir>: the relay writes a CPU profile there when it stops (node --cpu-prof).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const proc = spawn(process.execPath, [...profile, '--import', 'tsx', 'src/relay/main.ts'], { cwd: repoRoot, env, stdio: ['ignore', out, out] });
  closeSync(out);
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  // Ready once /health names the runtime it was given (it listens a moment before it attaches that);
  // bounded, and given up at once if the relay exits.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await request(`${url}/health`).then(
      async (res) => res.statusCode === 200 && ((await res.body.json()) as { agent_url?: string }).agent_url === opts.env.AGENT_URL,
      () => false,
    );
    if (up) return { url, pid: proc.pid as number, logFile, stop };
    if (proc.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the relay process ${proc.exitCode === null ? 'did not listen within 60 s' : `exited with ${proc.exitCode}`}:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
