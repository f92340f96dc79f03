import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { spawnRelay } from '../helpers/relay-process';
import { tempDir } from '../helpers/temp-dir';

/**
 * The laptop relay's files store under kill -9: every repeat it answered 202 is counted after the
 * restart. The index is rewritten at most every second; what keeps the repeats in between is the
 * repeats log, written before each answer (src/core/incidents/persistent-store.ts).
 */
const auth = { authorization: 'Bearer splunk-secret' };
const REPEATS = 400;
const SENDERS = 8;

async function laptopRelay(dataDir: string) {
  const relay = await spawnRelay({
    AGENT_URL: 'http://127.0.0.1:1',
    AGENT_SERVER_PASSWORD: 'runtime-pw',
    WEBHOOK_SECRET: 'splunk-secret',
    RELAY_DATA_DIR: dataDir,
    RELAY_LOG_DIR: tempDir('fault-relay-kill-logs-'),
  });
  onTestFinished(() => relay.stop('SIGKILL'));
  return relay;
}

const send = async (base: string, body: string) => {
  const res = await request(`${base}/fault-alert`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
  return { status: res.statusCode, json: (await res.body.json()) as { incident_id: string; occurrences?: number } };
};

describe('files store: kill -9 during a storm of repeats', () => {
  it('counts every repeat answered 202 before the kill: occurrences are N + 1 after the restart', { timeout: 120_000 }, async () => {
    const dataDir = tempDir('fault-relay-kill-data-');
    const relay = await laptopRelay(dataDir);
    const body = JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2' }));
    const first = await send(relay.url, body);
    expect(first.status).toBe(202);
    let accepted = 0;
    let sent = 0;
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (sent < REPEATS) {
          sent++;
          const answer = await send(relay.url, body);
          expect(answer.status).toBe(202);
          accepted++;
        }
      }),
    );
    // Killed at once after the last 202: well inside the index's second of coalescing.
    await relay.stop('SIGKILL');
    expect(accepted).toBe(REPEATS);

    const again = await laptopRelay(dataDir);
    const res = await request(`${again.url}/sessions`, { headers: auth });
    const sessions = (await res.body.json()) as Record<string, { occurrences: number }>;
    expect(sessions[first.json.incident_id]?.occurrences).toBe(REPEATS + 1);
  });
});
