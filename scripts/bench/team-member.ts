/**
 * A team relay for the benches, in this process: test/team/team-relays.ts without vitest (its
 * members are stopped by the test runner; here by the bench itself), with a stub runtime that
 * says when a human operator response reaches it.
 */
import pino from 'pino';
import { loadConfig } from '../../src/config/load';
import { createRelay, type Relay } from '../../src/relay/create-relay';
import type { SharedIncidentStore } from '../../src/adapters/store-pg/pg-store';
import type { TeamCoordinator } from '../../src/adapters/team/coordinator';
import { openTeamStore } from '../../src/adapters/team/open';
import { BENCH_DECISION_KEY } from './decision-key';
import { createStubRuntime } from '../../test/helpers/stub-runtime';
import { teamCluster } from '../../src/adapters/team/team-cluster';

export const silent = pino({ level: 'silent' });

export interface BenchMember {
  relay: Relay;
  store: SharedIncidentStore;
  team: TeamCoordinator;
  agent: ReturnType<typeof createStubRuntime>;
  /** Resolves with the moment (hrtime) the next HUMAN OPERATOR RESPONSE prompt reaches this relay's runtime. */
  nextHumanResponse(): Promise<bigint>;
  stop(): Promise<void>;
}

/** A team relay on `url` with its own stub runtime, as start-headless makes one (minus HTTP listening). */
export async function benchMember(url: string, env: Record<string, string> = {}): Promise<BenchMember> {
  const config = loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', DATABASE_URL: url, TEAM_DECISION_KEY: BENCH_DECISION_KEY, MAX_ACTIVE_RUNS: '100', ...env });
  const { store, coordinator: team } = await openTeamStore({ url, decisionKey: BENCH_DECISION_KEY, retention: config.INCIDENT_RETENTION, leaseMs: 10_000, logger: silent });
  const agent = createStubRuntime();
  const waiting: ((at: bigint) => void)[] = [];
  const promptAsync = agent.promptAsync.bind(agent);
  // The decision forwarder's prompt is the end of a decision's path: the run is told.
  agent.promptAsync = async (sessionId, input) => {
    await promptAsync(sessionId, input);
    if (input.text.startsWith('HUMAN OPERATOR RESPONSE')) {
      const at = process.hrtime.bigint();
      for (const resolve of waiting.splice(0)) resolve(at);
    }
  };
  // The engineers' trays are the approval channel a team relay asks (their decisions come over the API).
  const relay = await createRelay({ config, store, agent, logger: silent, cluster: teamCluster(team), extraChannels: () => ['desktop'] });
  await team.start();
  let gone = false;
  return {
    relay,
    store,
    team,
    agent,
    nextHumanResponse: () => new Promise<bigint>((resolve) => waiting.push(resolve)),
    async stop() {
      if (gone) return;
      gone = true;
      await team.stop();
      await relay.close();
      await store.pool.end();
    },
  };
}

/**
 * Resolves when `holds()` is true of the relay's memory (re-checked on every bus event); rejects
 * after `timeoutMs`, so a bench whose relays stopped agreeing ends instead of waiting for ever.
 */
export function until(relay: Relay, holds: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`gave up after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const check = () => {
      if (!holds()) return;
      clearTimeout(timer);
      off();
      resolve();
    };
    const off = relay.bus.subscribeAll(check);
    check();
  });
}
