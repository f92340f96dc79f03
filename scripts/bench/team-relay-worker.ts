/**
 * One team relay in a process of its own, for npm run bench:team's throughput part (team-throughput.ts
 * forks it): relays on separate machines do not share an event loop, so two in one process would
 * measure that loop, not the team. A stub runtime stands in for the agents (the bench measures the
 * relay and its database, not a model), and nothing is logged.
 *
 * Told over IPC: `settle` (finish this relay's runs, as their agents would, and commit), `cpu` (the
 * CPU time this process has used: what an alert costs, whatever else the machine is doing; and the
 * queries it has sent to the database, each a round trip), `stop`.
 * It also stops when the bench goes away (its IPC channel closes), so it is never left behind.
 */
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config/load';
import { createRelay } from '../../src/relay/create-relay';
import { openTeamStore } from '../../src/adapters/team/open';
import { BENCH_DECISION_KEY } from './decision-key';
import { createStubRuntime } from '../../test/helpers/stub-runtime';
import { silent } from './team-member';
import { teamCluster } from '../../src/adapters/team/team-cluster';

export type WorkerMessage = { type: 'ready'; url: string } | { type: 'settled'; left: number } | { type: 'cpu'; ms: number; queries: number };
export type WorkerCommand = { type: 'settle' } | { type: 'cpu' } | { type: 'stop' };

const url = process.env.BENCH_DATABASE_URL;
const dir = process.env.BENCH_DIR;
if (!url || !dir || !process.send) throw new Error('team-relay-worker is forked by scripts/bench/team-throughput.ts');
const send = (m: WorkerMessage) => process.send?.(m);

// Every query of the relay's pools goes through pg.Client#query: counted here, in the bench only.
let queries = 0;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  queries += 1;
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

const config = loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', DATABASE_URL: url, TEAM_DECISION_KEY: BENCH_DECISION_KEY, MAX_ACTIVE_RUNS: '100', RELAY_LOG_DIR: join(dir, `logs-${process.pid}`) });
const { store, coordinator } = await openTeamStore({ url, decisionKey: BENCH_DECISION_KEY, retention: config.INCIDENT_RETENTION, leaseMs: 10_000, logger: silent });
const relay = await createRelay({ config, store, agent: createStubRuntime(), logger: silent, cluster: teamCluster(coordinator), extraChannels: () => ['desktop'] });
await coordinator.start();

let stopping: Promise<void> | undefined;
const stop = () =>
  (stopping ??= (async () => {
    await coordinator.stop();
    await relay.close();
    await store.pool.end();
  })().finally(() => process.exit(0)));

/** This relay's runs end (their agents reported): the next round starts with no run active. */
async function settle(): Promise<number> {
  const at = new Date().toISOString();
  for (const incident of relay.incidents.open()) {
    if (incident.state !== 'running' || !coordinator.owns(incident.incident_id)) continue;
    relay.incidents.transition(incident.incident_id, 'resolve', () => ({ outcome: { kind: 'resolved', summary: 'bench', at } }));
  }
  await store.flush();
  return relay.incidents.open().filter((i) => coordinator.owns(i.incident_id) && i.state !== 'running').length;
}

process.on('message', (m: WorkerCommand) => {
  if (m.type === 'settle') void settle().then((left) => send({ type: 'settled', left }), () => send({ type: 'settled', left: -1 }));
  if (m.type === 'cpu') {
    const used = process.cpuUsage();
    send({ type: 'cpu', ms: (used.user + used.system) / 1000, queries });
  }
  if (m.type === 'stop') void stop();
});
process.on('disconnect', () => void stop());
send({ type: 'ready', url: await relay.listen({ port: 0, host: '127.0.0.1' }) });
