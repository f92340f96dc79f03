import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fakePagerDuty } from '../fakes/pagers';
import { ad000002 } from '../helpers/relay';
import { repoRoot } from '../helpers/relay-process';
import { tempDir } from '../helpers/temp-dir';

const ROUTING_KEY = 'pd-routing-key-kill-test';

/** The relay child (relay-child.ts) on `dataDir`; resolves with its URL once it listens. */
async function relayChild(dataDir: string, pagerDutyUrl: string) {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/paging/relay-child.ts'], {
    cwd: repoRoot,
    env: { ...process.env, RELAY_DATA_DIR: dataDir, RELAY_LOG_DIR: join(dataDir, 'logs'), PAGERDUTY_ROUTING_KEY: ROUTING_KEY, PAGERDUTY_URL: pagerDutyUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const kill = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGKILL');
    await once(proc, 'exit');
  };
  onTestFinished(kill);
  for await (const line of createInterface({ input: proc.stdout })) {
    const m = /^listening (\S+)$/.exec(line);
    if (m) return { url: m[1]!, kill };
  }
  throw new Error('the relay child exited before it listened');
}

describe('a queued page survives kill -9 of the relay', () => {
  it('is sent after the restart, exactly once', { timeout: 120_000 }, async () => {
    const dataDir = tempDir('fault-relay-page-kill-');
    const pd = await fakePagerDuty(ROUTING_KEY);
    // PagerDuty is down while the first relay runs: its page stays queued.
    pd.setDown(503);
    const first = await relayChild(dataDir, pd.url);
    const res = await fetch(`${first.url}/fault-alert`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ad000002()) });
    expect(res.status).toBe(202);
    const { incident_id: id } = (await res.json()) as { incident_id: string };
    // A try reached PagerDuty: the page was in the outbox before it (queued, then sent).
    await pd.untilReceived(1);
    await first.kill();
    const tries = pd.received.length;
    expect(pd.accepted).toEqual([]);

    pd.setDown(undefined);
    await relayChild(dataDir, pd.url);
    await pd.untilAccepted(1);
    expect(pd.accepted).toMatchObject([{ event_action: 'trigger', dedup_key: id }]);
    expect(pd.received.slice(tries).filter((r) => r.status === 202)).toHaveLength(1);
  });
});
