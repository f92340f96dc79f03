/**
 * npm run bench:team: the team relay on a real PostgreSQL (a throwaway server, removed after),
 * printed, not asserted:
 *   1. the cost of a state change (the relay's own path: update, timeline line, commit) with
 *      100,000 incidents stored, as a ratio to the same with 100;
 *   2. 1,000 alerts over 10 faults sent round robin to two relays, one killed half-way (its turns
 *      go to the other, as the load balancer in compose.yaml does): incidents, sessions, lost;
 *   3. a person's decision made on the relay that does not run the incident, until that incident's
 *      runtime is told, p50 and p99, as a ratio to the same decision made on the relay that runs it
 *      (scripts/bench/team-decision.ts);
 *   4. intake throughput (new faults, repeats) of two relays against one on the same database, each
 *      relay its own process (scripts/bench/team-throughput.ts): first as they share this machine, then
 *      with each relay held to --relay-cpus of a CPU (a cgroup; root only), so that the relays and not
 *      the database and sender on the same box are the limit, as with a machine per relay.
 * The tray's list with 10,000 incidents is npm run bench:team-list.
 * Usage: npm run bench:team -- [--decisions 200] [--rounds 5] [--faults 100] [--repeats 2000] [--in-flight 16] [--relay-cpus 0.3 | 0]
 */
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createBus } from '../src/core/events/bus';
import { buildSplunkAlert } from '../src/adapters/alert-sources/sample';
import { loadConfig } from '../src/config/load';
import type { RelayEvents } from '../src/core/incidents/events';
import { NO_APPLICATION, type Incident } from '../src/core/incidents/model';
import { createIncidents } from '../src/core/incidents/service';
import { createRelay } from '../src/relay/create-relay';
import { createPool, migrate } from '../src/adapters/store-pg/database';
import { startLocalPostgres } from '../src/adapters/store-pg/local-server';
import { createPgStore } from '../src/adapters/store-pg/pg-store';
import { openTeamStore } from '../src/adapters/team/open';
import { BENCH_DECISION_KEY } from './bench/decision-key';
import { systemClock } from '../src/core/clock';
import { createStubRuntime } from '../test/helpers/stub-runtime';
import { decisionLatency } from './bench/team-decision';
import { intakeThroughput } from './bench/team-throughput';
import { teamCluster } from '../src/adapters/team/team-cluster';
import { errorText } from '../src/core/error-body';

const { values } = parseArgs({ options: { decisions: { type: 'string' }, rounds: { type: 'string' }, faults: { type: 'string' }, repeats: { type: 'string' }, 'in-flight': { type: 'string' }, 'relay-cpus': { type: 'string' } } });
const arg = (name: keyof typeof values, fallback: number) => Math.max(1, Math.floor(Number(values[name] ?? fallback)) || fallback);

const logger = pino({ level: 'silent' });
const server = await startLocalPostgres({ prefix: 'fault-relay-bench-team-' });
process.once('SIGINT', () => {
  server.destroySync();
  process.exit(130);
});

const template = (id: string, state: Incident['state']): Incident => {
  const at = new Date().toISOString();
  return {
    incident_id: id, kind: 'relay', session_id: null, alert_def_id: 'AD000002', device_hostname: 'R1', mode: 'strict', state, created_at: at, updated_at: at, last_seen: at,
    occurrences: 1, warnings: [], alert_vars: { neighbor_ip: '10.0.0.2' }, field_sources: null, severity: 'major', progress: null, approval_request: null, approval: null,
    application: NO_APPLICATION, change: null, outcome: null, prompt_text: null, dedup_key: `bench-${id}`, delivery: { attempts: 0, next_attempt_at: null, last_error: null },
  };
};

let databases = 0;

/** Mean cost of one state change (update + timeline line + commit) with `stored` finished incidents in the database. */
async function stateChangeCost(stored: number, changes = 400): Promise<number> {
  const url = await server.createDatabase(`bench_${stored}_${++databases}`);
  const pool = createPool({ url, logger });
  try {
    await migrate(pool, logger);
    // Seeded in SQL (a relay that has run for a long while), with a few timeline lines each.
    await pool.query(
      `INSERT INTO incidents (incident_id, doc, state, terminal, dedup_key, created_at, updated_at, occurrences, last_seen, owner)
       SELECT 'INC-B-' || g, jsonb_set(jsonb_set($1::jsonb, '{incident_id}', to_jsonb('INC-B-' || g)), '{dedup_key}', to_jsonb('b-' || g)),
              'resolved', true, 'b-' || g, $2, $2, 1, $2, 'gone'
         FROM generate_series(1, $3) AS g`,
      [JSON.stringify(template('x', 'resolved')), '2026-01-01T00:00:00.000Z', stored],
    );
    await pool.query(`INSERT INTO timeline (incident_id, relay_id, entry) SELECT 'INC-B-' || (g % $1 + 1), 'gone', '{"at":"x","type":"t","message":"m"}'::jsonb FROM generate_series(1, $1 * 5) AS g`, [stored]);
    await pool.query('ANALYZE');
    const store = await createPgStore({ pool, relayId: 'bench', retention: stored + 1000, logger });
    const incidents = createIncidents({ store, bus: createBus<RelayEvents>(), clock: systemClock, logger });
    store.put(template('INC-LIVE', 'running'));
    await store.flush();
    // A state change each: into an approval and back out of it (decided in the run's own terminal).
    const events = ['request_approval', 'decide_in_session'] as const;
    for (let n = 0; n < 50; n++) {
      incidents.transition('INC-LIVE', n % 2 ? events[1] : events[0]);
      await store.flush();
    }
    const started = process.hrtime.bigint();
    for (let n = 0; n < changes; n++) {
      incidents.transition('INC-LIVE', n % 2 ? events[1] : events[0]);
      await store.flush();
    }
    const perChange = Number(process.hrtime.bigint() - started) / 1e6 / changes;
    await store.close();
    return perChange;
  } finally {
    await pool.end();
  }
}

async function roundRobin(): Promise<void> {
  const url = await server.createDatabase('bench_rr');
  const member = async () => {
    const config = loadConfig({ AGENT_URL: 'http://127.0.0.1:1', AGENT_SERVER_PASSWORD: 'pw', DATABASE_URL: url, TEAM_DECISION_KEY: BENCH_DECISION_KEY, INCIDENT_RETENTION: '1000', MAX_ACTIVE_RUNS: '20' });
    const { store, coordinator } = await openTeamStore({ url, decisionKey: BENCH_DECISION_KEY, retention: 1000, leaseMs: 1_000, logger });
    const agent = createStubRuntime();
    const relay = await createRelay({ config, store, agent, logger, cluster: teamCluster(coordinator), deliveryWaitMs: 100, extraChannels: () => ['desktop'] });
    await coordinator.start();
    let alive = true;
    return {
      relay, agent, store,
      alive: () => alive,
      async kill() {
        alive = false;
        await coordinator.stop({ handOver: false });
        await store.pool.end();
        await relay.close().catch(() => {});
      },
      async stop() {
        if (!alive) return;
        alive = false;
        await coordinator.stop();
        await relay.close();
        await store.pool.end();
      },
    };
  };
  const a = await member();
  const b = await member();
  const relays = [a, b];
  const faults = Array.from({ length: 10 }, (_, n) => buildSplunkAlert({ device: 'R1', neighbor: `10.0.${n}.2` }));
  const answers = new Map<number, number>();
  let rerouted = 0;
  const send = async (n: number) => {
    const body = faults[n % 10];
    for (let turn = n; ; turn++) {
      const target = relays[turn % 2] as (typeof relays)[number];
      if (!target.alive()) {
        rerouted += 1;
        continue;
      }
      const res = await target.relay.app.inject({ method: 'POST', url: '/fault-alert', payload: body as object }).catch(() => undefined);
      // A relay that died under the request: the load balancer sends it to the other.
      if (!res || res.statusCode >= 500) {
        rerouted += 1;
        continue;
      }
      answers.set(res.statusCode, (answers.get(res.statusCode) ?? 0) + 1);
      return;
    }
  };
  const started = process.hrtime.bigint();
  const inFlight = new Set<Promise<void>>();
  for (let n = 0; n < 1000; n++) {
    if (n === 500) void a.kill();
    const p = send(n).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= 20) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const sendMs = Number(process.hrtime.bigint() - started) / 1e6;
  // B adopts A's incidents once A's lease runs out: wait for every fault to run on B.
  const deadline = Date.now() + 30_000;
  const runningOnB = () => b.relay.incidents.list().filter((i) => i.state === 'running' && b.agent.sessions.some((s) => s.id === i.session_id)).length;
  while (runningOnB() < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const rows = await b.store.pool.query<{ n: number; occ: number }>('SELECT count(*)::int AS n, sum(occurrences)::int AS occ FROM incidents');
  const accepted = answers.get(202) ?? 0;
  console.log(`\n1,000 alerts over 10 faults, round robin to two relays, relay A killed after 500 (${sendMs.toFixed(0)} ms to send)`);
  console.log(`  answers: ${[...answers].map(([c, k]) => `${k}×${c}`).join(', ')}; re-sent to the other relay: ${rerouted}`);
  console.log(`  incidents in the database: ${rows.rows[0]?.n} (expected 10); alerts counted in them: ${rows.rows[0]?.occ} of ${accepted} accepted (lost: ${accepted - (rows.rows[0]?.occ ?? 0)})`);
  const live = new Set(b.relay.incidents.list().map((i) => i.session_id).filter(Boolean));
  console.log(`  runs on the surviving relay: ${runningOnB()} of 10, one session each (${live.size} sessions); sessions ever created: A ${a.agent.sessions.length}, B ${b.agent.sessions.length} (A's runs, none past a change, were delivered again on B)`);
  await b.stop();
}

try {
  await stateChangeCost(100); // warm-up: the first run pays for JIT and cold caches
  const small = await stateChangeCost(100);
  const large = await stateChangeCost(100_000);
  console.log('state change (update + timeline line + commit) on PostgreSQL');
  console.log(`  100 stored: ${small.toFixed(3)} ms   100,000 stored: ${large.toFixed(3)} ms   ratio ${(large / small).toFixed(2)} (bar: at most 1.5)`);
  await roundRobin();
  await decisionLatency(server, arg('decisions', 200));
  const intake = { rounds: arg('rounds', 5), faults: arg('faults', 100), repeats: arg('repeats', 2000), inFlight: arg('in-flight', 16) };
  await intakeThroughput(server, intake);
  const relayCpus = Number(values['relay-cpus'] ?? 0.3);
  if (relayCpus > 0) await intakeThroughput(server, { ...intake, relayCpus }).catch((error: unknown) => console.log(`\nintake throughput with each relay held to ${relayCpus} CPU: not measured (${errorText(error)})`));
} finally {
  await server.destroy();
}
