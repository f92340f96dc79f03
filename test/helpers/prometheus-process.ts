import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findFreePort } from '../../src/adapters/agent/free-port';
import { atExit } from './at-exit';
import { waitUntil } from './opencode';
import { tempDir } from './temp-dir';

/** The distribution's Prometheus (Debian's `prometheus` package installs /usr/bin/prometheus). */
const BINARY = ['prometheus'].find((name) => spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0);

/** Why the real-Prometheus test cannot run here, or undefined when it can (CI installs it: .ci/run). */
export const noPrometheus = BINARY ? undefined : 'prometheus is not installed (apt-get install -y prometheus): the Prometheus scrape integration test is skipped';

export interface LocalPrometheus {
  url: string;
  /** An instant query through Prometheus's HTTP API: the first sample's value, or undefined while there is none. */
  query(expr: string): Promise<number | undefined>;
  /** The scrape target's health as Prometheus reports it (`up`, `down`, `unknown`) and its last error. */
  target(): Promise<{ health: string; lastError: string } | undefined>;
  stop(): Promise<void>;
}

/**
 * A real Prometheus on a free loopback port scraping `target` (host:port) every second with the
 * bearer, its config and TSDB in a temp folder removed with the test. No global rule files or
 * remote write: only the one job.
 */
export async function startPrometheus(opts: { target: string; bearer: string }): Promise<LocalPrometheus> {
  if (!BINARY) throw new Error(noPrometheus);
  const dir = tempDir('prometheus-');
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: fault-relay',
      '    metrics_path: /metrics',
      '    authorization:',
      '      type: Bearer',
      `      credentials: ${JSON.stringify(opts.bearer)}`,
      '    static_configs:',
      `      - targets: [${JSON.stringify(opts.target)}]`,
      '',
    ].join('\n'),
  );
  const port = await findFreePort();
  const child: ChildProcess = spawn(
    BINARY,
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr = (stderr + String(chunk)).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  atExit(() => child.kill('SIGKILL'));
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    async () => {
      if (gone) throw new Error(`prometheus exited: ${stderr}`);
      return fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    },
    'prometheus is ready',
    { timeoutMs: 30_000 },
  );
  return {
    url,
    async query(expr) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      if (!res.ok) throw new Error(`prometheus answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
      const first = body.data.result[0];
      return first ? Number(first.value[1]) : undefined;
    },
    async target() {
      const res = await fetch(`${url}/api/v1/targets`);
      const body = (await res.json()) as { data: { activeTargets: { health: string; lastError: string }[] } };
      return body.data.activeTargets[0];
    },
    async stop() {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
  };
}
