import { onTestFinished } from 'vitest';
import { spawnRelay, type RelayProcess } from '../helpers/relay-process';
import { tempDir } from '../helpers/temp-dir';
import { TEAM_DECISION_KEY } from './team-relays';

/** Splunk's secret on the relay processes of the team tests. */
export const auth = { authorization: 'Bearer splunk-secret' };

/** `npm run relay` with DATABASE_URL, as a team deploys it; the runtime is not reachable here unless `env` names one (alerts stay queued). */
export async function teamRelay(url: string, env: Record<string, string> = {}, opts: Parameters<typeof spawnRelay>[1] = {}): Promise<RelayProcess> {
  const relay = await spawnRelay({
    TEAM_DECISION_KEY,
    RELAY_LEASE_MS: '1000',
    AGENT_URL: 'http://127.0.0.1:1',
    AGENT_SERVER_PASSWORD: 'runtime-pw',
    WEBHOOK_SECRET: 'splunk-secret',
    RELAY_DATA_DIR: tempDir('fault-relay-team-data-'),
    RELAY_LOG_DIR: tempDir('fault-relay-team-logs-'),
    ...env,
    DATABASE_URL: url,
  }, opts);
  onTestFinished(() => relay.stop('SIGKILL'));
  return relay;
}
