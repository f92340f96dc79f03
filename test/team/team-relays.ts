import { onTestFinished } from 'vitest';
import type { Clock } from '../../src/core/clock';
import { loadConfig } from '../../src/config/load';
import { createRelay, type Relay, type RelayCluster, type RelayDeps } from '../../src/relay/create-relay';
import type { TeamCoordinator } from '../../src/adapters/team/coordinator';
import { readDecisionKey } from '../../src/adapters/team/decision-seal';
import { openTeamStore } from '../../src/adapters/team/open';
import type { SharedIncidentStore } from '../../src/adapters/store-pg/pg-store';
import { silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { testLogDir } from '../helpers/log-dir';
import { teamCluster } from '../../src/adapters/team/team-cluster';

/** The team's decision key in the tests (TEAM_DECISION_KEY): every relay of a test's team holds it. */
export const TEAM_DECISION_KEY = 'test-team-decision-key-0123456789abcdef';

export interface TeamMember {
  relay: Relay;
  store: SharedIncidentStore;
  team: TeamCoordinator;
  /** The relay's cluster (the port createRelay asks), as the contract test drives it. */
  cluster: RelayCluster;
  agent: ReturnType<typeof createStubRuntime>;
  /** As a killed process: no goodbye, its connections cut, its heartbeat stops. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** A team relay on `url` with its own stub runtime, as start-headless makes one (minus HTTP listening). */
export async function teamMember(
  url: string,
  opts: { relayId?: string; leaseMs?: number; heartbeatMs?: number; lockWaitMs?: number; queryTimeoutMs?: number; retryMs?: number; clock?: Clock; env?: Record<string, string>; relay?: Pick<RelayDeps, 'deviceTools' | 'postCheckPaceS'> } = {},
): Promise<TeamMember> {
  // No spare session unless a test asks: most count the sessions their alerts make.
  const config = loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', DATABASE_URL: url, TEAM_DECISION_KEY, RELAY_LOG_DIR: testLogDir(), AGENT_SPARE_SESSION: 'off', ...opts.env });
  const { store, coordinator: team } = await openTeamStore({ url, retention: config.INCIDENT_RETENTION, leaseMs: opts.leaseMs ?? 10_000, logger: silent, decisionKey: readDecisionKey(config), ...(opts.relayId ? { relayId: opts.relayId } : {}), ...(opts.heartbeatMs ? { heartbeatMs: opts.heartbeatMs } : {}), ...(opts.lockWaitMs ? { lockWaitMs: opts.lockWaitMs } : {}), ...(opts.queryTimeoutMs ? { queryTimeoutMs: opts.queryTimeoutMs } : {}), ...(opts.retryMs ? { retryBaseMs: opts.retryMs, retryMaxMs: opts.retryMs } : {}) });
  const agent = createStubRuntime();
  // The engineers' trays are the approval channel a team relay asks (their decisions come over the API).
  const cluster = teamCluster(team);
  const relay = await createRelay({ config, store, agent, logger: silent, cluster, retryBaseMs: 50, deliveryWaitMs: 2_000, extraChannels: () => ['desktop'], ...(opts.clock ? { clock: opts.clock } : {}), ...opts.relay });
  await team.start();
  let gone = false;
  const member: TeamMember = {
    relay,
    store,
    team,
    cluster,
    agent,
    async kill() {
      if (gone) return;
      gone = true;
      // Nothing more reaches the database from this relay: no flush, no 'stopped' flag.
      await team.stop({ handOver: false });
      await store.pool.end();
      await relay.close().catch(() => {});
    },
    async stop() {
      if (gone) return;
      gone = true;
      await team.stop();
      await relay.close();
      await store.pool.end();
    },
  };
  onTestFinished(() => member.stop());
  return member;
}

/** Resolves when `holds()` is true of the relay's memory (re-checked on every bus event). */
export function until(relay: Relay, holds: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!holds()) return;
      off();
      resolve();
    };
    const off = relay.bus.subscribeAll(check);
    check();
  });
}
