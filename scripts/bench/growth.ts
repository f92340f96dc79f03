/**
 * What an alert costs as the relay grows, against baselines measured in the same run on the same
 * runtime, each a relay of its own taking turns with the other a sample at a time:
 *   - intake p50 with 100,000 incidents stored (files store) against an empty store;
 *   - a restart with 100,000 incidents: from opening the store to listening;
 *   - intake p99 with 500 event-stream clients reading against none.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { Pool } from 'undici';
import type { RuntimeEndpoint } from '../../src/core/agent-runtime';
import { createAgentClient } from '../../src/adapters/agent/client';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { loadConfig } from '../../src/config/load';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import { createPersistentStore } from '../../src/core/incidents/persistent-store';
import { createRelay } from '../../src/relay/create-relay';
import { fmt, ms, pct, takeTurns } from './stats';
import { fillArchive, readAndParse } from './stored';
import { laptopRelayCluster } from '../../src/relay/laptop-cluster';

export const STORED = 100_000;
export const STREAM_CLIENTS = 500;

async function startRelay(dir: string, endpoint: RuntimeEndpoint, logger: Logger, retention: number) {
  const config = loadConfig({
    AGENT_URL: endpoint.url, AGENT_SERVER_USERNAME: endpoint.username, AGENT_SERVER_PASSWORD: endpoint.password, MAX_ACTIVE_RUNS: '100',
    AGENT_SPARE_SESSION: 'off', INGEST_PORT: '0', RELAY_LOG_DIR: join(dir, 'logs'), INCIDENT_RETENTION: String(retention),
  });
  const start = process.hrtime.bigint();
  const b = createFileBackends(dir);
  const store = createPersistentStore({ backend: b.open, archive: b.archive, timelineDir: join(dir, 'timelines'), retention, logger });
  const storeMs = ms(start);
  const relay = await createRelay({ cluster: laptopRelayCluster(config.RELAY_DATA_DIR), config, store, agent: createAgentClient(endpoint), logger });
  const url = await relay.listen({ port: 0 });
  return { relay, url, pool: new Pool(url, { connections: 4 }), storeMs };
}
type Running = Awaited<ReturnType<typeof startRelay>>;

async function intake(r: Running, device: string): Promise<number> {
  const body = JSON.stringify(buildSplunkAlert({ device }));
  const start = process.hrtime.bigint();
  const res = await r.pool.request({ path: '/fault-alert', method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const json = (await res.body.json()) as { status?: string };
  if (res.statusCode !== 202 || (json.status !== 'accepted' && json.status !== 'queued')) throw new Error(`alert for ${device} answered ${res.statusCode} ${json.status}`);
  return ms(start);
}

/** `count` clients following `/events`, each reading everything; resolves once every snapshot came. */
async function streamClients(url: string, count: number) {
  const pool = new Pool(url, { connections: count });
  const controller = new AbortController();
  const opened = Array.from({ length: count }, async () => {
    const res = await pool.request({ path: '/events', method: 'GET', signal: controller.signal });
    const body = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    await body.next();
    void (async () => {
      try {
        while (!(await body.next()).done);
      } catch {
        // Closed by the bench.
      }
    })();
  });
  await Promise.all(opened);
  return {
    async close() {
      controller.abort();
      await pool.destroy();
    },
  };
}

export async function benchGrowth(opts: { dataDir: string; endpoint: RuntimeEndpoint; logger: Logger; n: number }) {
  const { dataDir, endpoint, logger, n } = opts;
  const fullDir = join(dataDir, 'growth-full');
  fillArchive(fullDir, STORED);
  const floor = readAndParse(fullDir).ms;
  const restartStart = process.hrtime.bigint();
  const full = await startRelay(fullDir, endpoint, logger, STORED + 1000);
  const restart = ms(restartStart);
  const empty = await startRelay(join(dataDir, 'growth-empty'), endpoint, logger, STORED + 1000);
  const none = await startRelay(join(dataDir, 'growth-none'), endpoint, logger, 1000);
  const fanned = await startRelay(join(dataDir, 'growth-fanned'), endpoint, logger, 1000);
  let clients: { close(): Promise<void> } | undefined;
  try {
    if (full.relay.incidents.list().length !== STORED) throw new Error(`the relay started with ${full.relay.incidents.list().length} of ${STORED} stored incidents`);
    for (const r of [full, empty, none, fanned]) for (let i = 0; i < 10; i++) await intake(r, `GWARM${i}`);
    const [emptySamples, fullSamples] = await takeTurns([(i) => intake(empty, `GE${i}`), (i) => intake(full, `GF${i}`)], n, 1);
    clients = await streamClients(fanned.url, STREAM_CLIENTS);
    const [noneSamples, fannedSamples] = await takeTurns([(i) => intake(none, `GN${i}`), (i) => intake(fanned, `GS${i}`)], n, 1);
    const e50 = pct(emptySamples as number[], 50);
    const f50 = pct(fullSamples as number[], 50);
    const n99 = pct(noneSamples as number[], 99);
    const s99 = pct(fannedSamples as number[], 99);
    console.log(`growth (files store, n=${n} each, taking turns)`);
    console.log(`  intake p50 with ${STORED} stored ${fmt(f50)} ms, empty store ${fmt(e50)} ms: ratio ${fmt(f50 / e50)} (goal ≤ 1.5)`);
    // The stored incidents have no session logs here (a relay's would): the start schedules one for each.
    console.log(`  restart with ${STORED} stored incidents: ${fmt(restart / 1000)} s from opening the store to listening (goal ≤ 5 s): the store ${fmt(full.storeMs / 1000)} s, the rest ${fmt((restart - full.storeMs) / 1000)} s`);
    // The part of a start no store can skip, measured on the same files just before: what the start adds is the rest.
    console.log(`    reading and parsing its files alone ${fmt(floor / 1000)} s: restart / that = ${fmt(restart / floor)}`);
    console.log(`  intake p99 with ${STREAM_CLIENTS} event-stream clients ${fmt(s99)} ms, none ${fmt(n99)} ms: ratio ${fmt(s99 / n99)} (goal ≤ 2)`);
  } finally {
    await clients?.close();
    for (const r of [full, empty, none, fanned]) {
      await r.pool.close();
      await r.relay.close();
    }
  }
}
