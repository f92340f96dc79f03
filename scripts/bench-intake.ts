/**
 * Intake cost against the real runtime, printed as ratios to baselines measured in
 * the same run:
 *   - POST /fault-alert p50/p99 vs the runtime's own POST /session + prompt_async p50;
 *   - duplicate-path throughput vs a bare fastify route answering 202 with JSON.
 * Usage: npm run bench:intake -- [--n 60] [--dups 3000] [--concurrency 16]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import pino from 'pino';
import { Pool } from 'undici';
import { createAgentClient } from '../src/agent/client';
import { startEmbeddedRuntime } from '../src/agent/embedded';
import { demoRuntimeHome } from '../src/demo/runtime-home';
import { scriptedProviderConfig, startScriptedModel } from '../src/demo/scripted-model';
import { buildSplunkAlert } from '../src/alert/sample';
import { loadConfig } from '../src/config/load';
import { createConfBackends } from '../src/incidents/conf-backend';
import { createPersistentStore } from '../src/incidents/persistent-store';
import { NO_APPLICATION } from '../src/incidents/model';
import { createRelay } from '../src/relay/create-relay';

const { values } = parseArgs({ options: { n: { type: 'string' }, dups: { type: 'string' }, concurrency: { type: 'string' } } });
const N = Number(values.n ?? 60);
const DUPS = Number(values.dups ?? 3000);
const CONCURRENCY = Number(values.concurrency ?? 16);
const logger = pino({ level: 'silent' });

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const fmt = (x: number) => x.toFixed(2);

async function throughput(pool: Pool, path: string, body: string, total: number): Promise<number> {
  let sent = 0;
  const start = process.hrtime.bigint();
  const worker = async () => {
    while (sent < total) {
      sent++;
      const res = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await res.body.dump();
      if (res.statusCode !== 202) throw new Error(`${path} answered ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return total / (ms(start) / 1000);
}

/** Mean cost of a state change of an open incident, with `archived` finished incidents stored. */
function stateChangeCost(dir: string, archived: number, rounds = 200): number {
  const b = createConfBackends(dir);
  const store = createPersistentStore({ backend: b.open, archive: b.archive, retention: 1000, logger });
  const at = new Date().toISOString();
  const base = {
    session_id: null, alert_def_id: 'AD000002', mode: 'strict' as const, created_at: at, updated_at: at, last_seen: at, occurrences: 1,
    warnings: [], alert_vars: { neighbor_ip: '10.0.0.2', neighbor_as: '65002' }, kind: 'relay' as const, field_sources: null, severity: null, progress: null, approval_request: null, approval: null, application: NO_APPLICATION, outcome: null, prompt_text: null,
    delivery: { attempts: 1, next_attempt_at: null, last_error: null },
  };
  for (let i = 0; i < archived; i++) {
    store.put({ ...base, incident_id: `INC-A${i}`, device_hostname: `A${i}`, dedup_key: `a${i}`, state: 'resolved', outcome: { kind: 'resolved', summary: 'neighbor Established, 12 prefixes', at } });
  }
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) {
    store.put({ ...base, incident_id: 'INC-OPEN', device_hostname: 'R1', dedup_key: 'open', state: i % 2 ? 'running' : 'awaiting_approval' });
  }
  return ms(start) / rounds;
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-intake-'));
// The relay starts no run on a runtime without a model: a scripted one stands in (it answers at once).
const model = await startScriptedModel();
const runtime = await startEmbeddedRuntime({
  cwd: process.cwd(),
  logger,
  env: { ...demoRuntimeHome(join(dataDir, 'home'), process.cwd()), OPENCODE_CONFIG_CONTENT: JSON.stringify(scriptedProviderConfig(model.baseURL)) },
});
const client = createAgentClient(runtime.endpoint);
try {
  // Warm both paths once so neither pays first-request costs in the samples.
  const warm = await client.createSession({ title: 'bench warm-up' });
  await client.promptAsync(warm.id, { agent: 'network-troubleshooter', text: 'warm-up' });

  const runtimeSamples: number[] = [];
  for (let i = 0; i < N; i++) {
    const start = process.hrtime.bigint();
    const s = await client.createSession({ title: `bench baseline ${i}` });
    await client.promptAsync(s.id, { agent: 'network-troubleshooter', text: `baseline ${i}` });
    runtimeSamples.push(ms(start));
  }

  const config = loadConfig({
    AGENT_URL: runtime.endpoint.url,
    AGENT_SERVER_PASSWORD: runtime.endpoint.password,
    MAX_ACTIVE_RUNS: '100',
    INGEST_PORT: '0',
  });
  const store = createPersistentStore({ ...((b) => ({ backend: b.open, archive: b.archive }))(createConfBackends(dataDir)), timelineDir: join(dataDir, 'timelines'), retention: 1000, logger });
  const relay = await createRelay({ config, store, agent: createAgentClient(runtime.endpoint), logger });
  const url = await relay.listen({ port: 0 });
  const pool = new Pool(url, { connections: CONCURRENCY });

  const intakeSamples: number[] = [];
  for (let i = 0; i < N; i++) {
    const body = JSON.stringify(buildSplunkAlert({ device: `BENCH${i}` }));
    const start = process.hrtime.bigint();
    const res = await pool.request({ path: '/fault-alert', method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const json = (await res.body.json()) as { status: string };
    intakeSamples.push(ms(start));
    if (json.status !== 'accepted') throw new Error(`alert ${i} was ${json.status}`);
  }

  const dupBody = JSON.stringify(buildSplunkAlert({ device: 'BENCH0' }));
  const bare = Fastify({ logger: false });
  bare.post('/bare', async (_req, reply) => reply.code(202).send({ status: 'duplicate', incident_id: 'INC-x', alert_def_id: 'AD000002', session_id: 'ses_x' }));
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  const barePool = new Pool(bareUrl, { connections: CONCURRENCY });
  // The agents of the alerts above are still working on the same cores: relay and baseline take turns
  // (after one warm-up round each), and the best round of each counts, so both meet the same load.
  const ROUNDS = 3;
  const relayRounds: number[] = [];
  const bareRounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const r = await throughput(pool, '/fault-alert', dupBody, DUPS);
    const b = await throughput(barePool, '/bare', dupBody, DUPS);
    if (round === 0) continue;
    relayRounds.push(r);
    bareRounds.push(b);
  }
  const relayRps = Math.max(...relayRounds);
  const bareRps = Math.max(...bareRounds);
  const folded = relay.incidents.list().find((i) => i.device_hostname === 'BENCH0');
  const expected = DUPS * (ROUNDS + 1) + 1;
  if (folded?.occurrences !== expected) throw new Error(`the duplicates were not folded into one incident (${folded?.occurrences ?? 0} of ${expected} occurrences, state ${folded?.state})`);

  const rp50 = pct(runtimeSamples, 50);
  const ip50 = pct(intakeSamples, 50);
  const ip99 = pct(intakeSamples, 99);
  console.log(`runtime create+prompt  p50 ${fmt(rp50)} ms  p99 ${fmt(pct(runtimeSamples, 99))} ms  (n=${N})`);
  console.log(`relay intake           p50 ${fmt(ip50)} ms  p99 ${fmt(ip99)} ms  (n=${N})`);
  console.log(`  intake p50 / runtime p50 = ${fmt(ip50 / rp50)}   intake p99 / runtime p50 = ${fmt(ip99 / rp50)}`);
  console.log(`duplicate path  ${fmt(relayRps)} req/s   bare fastify route ${fmt(bareRps)} req/s  (best of ${ROUNDS} alternating rounds of ${DUPS} requests, ${CONCURRENCY} at once)`);
  console.log(`  duplicate / bare = ${fmt(relayRps / bareRps)}`);
  const empty = stateChangeCost(join(dataDir, 'store-empty'), 0);
  const full = stateChangeCost(join(dataDir, 'store-full'), 1000);
  console.log(`state change of an open incident  ${fmt(empty)} ms with 0 finished stored, ${fmt(full)} ms with 1000`);
  console.log(`  with 1000 / with 0 = ${fmt(full / empty)}`);

  await barePool.close();
  await bare.close();
  await pool.close();
  await relay.close();
} finally {
  await client.close();
  await runtime.stop();
  await model.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
