import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findFreePort } from '../../src/adapters/agent/free-port';
import { atExit } from './at-exit';
import { waitUntil } from './opencode';
import { tempDir } from './temp-dir';

/** The distribution's Alertmanager (Debian's `prometheus-alertmanager`), or upstream's name for it. */
const BINARY = ['prometheus-alertmanager', 'alertmanager'].find((name) => spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0);

/** Why the real-Alertmanager test cannot run here, or undefined when it can (CI installs it: .ci/run). */
export const noAlertmanager = BINARY ? undefined : 'prometheus-alertmanager is not installed (apt-get install -y prometheus-alertmanager): the Alertmanager integration test is skipped';

export interface LocalAlertmanager {
  url: string;
  /** Alertmanager's own API, as Prometheus feeds it: POST /api/v2/alerts. */
  postAlerts(alerts: { labels: Record<string, string>; annotations?: Record<string, string>; startsAt?: string; endsAt?: string }[]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real Alertmanager on a free loopback port, its storage in a temp folder removed with the test,
 * no cluster listener, and one webhook receiver: the relay. Group timings are short so the test
 * sees the first notification, a repeat and the resolution without waiting for defaults (minutes).
 */
export async function startAlertmanager(opts: { webhookUrl: string; bearer: string }): Promise<LocalAlertmanager> {
  if (!BINARY) throw new Error(noAlertmanager);
  const dir = tempDir('alertmanager-');
  const config = join(dir, 'alertmanager.yml');
  writeFileSync(
    config,
    [
      'route:',
      '  receiver: fault-relay',
      '  group_by: [alertname]',
      '  group_wait: 0s',
      '  group_interval: 1s',
      '  repeat_interval: 1s',
      'receivers:',
      '  - name: fault-relay',
      '    webhook_configs:',
      `      - url: ${JSON.stringify(opts.webhookUrl)}`,
      '        send_resolved: true',
      '        http_config:',
      '          authorization:',
      '            type: Bearer',
      `            credentials: ${JSON.stringify(opts.bearer)}`,
      '',
    ].join('\n'),
  );
  const port = await findFreePort();
  const child: ChildProcess = spawn(
    BINARY,
    [`--config.file=${config}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', '--log.level=warn'],
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
      if (gone) throw new Error(`alertmanager exited: ${stderr}`);
      return fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
    },
    'alertmanager is ready',
    { timeoutMs: 30_000 },
  );
  return {
    url,
    async postAlerts(alerts) {
      const res = await fetch(`${url}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) });
      if (!res.ok) throw new Error(`alertmanager answered ${res.status}: ${await res.text()}`);
    },
    async stop() {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
  };
}
