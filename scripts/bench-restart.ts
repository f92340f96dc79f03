/**
 * A laptop relay's restart with many stored incidents, in a process of its own each round (as a
 * restart is), against a baseline measured in the same process just before: reading the store's
 * files and JSON.parse of them, which no start can skip. The relay's runtime is left unreachable:
 * the relay starts without it and asks again later, so the figure is the relay's own work.
 * Usage: npm run bench:restart -- [--stored 100000] [--rounds 3]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createAgentClient } from '../src/adapters/agent/client';
import { loadConfig } from '../src/config/load';
import { createFileBackends } from '../src/core/incidents/file-backend';
import { createPersistentStore } from '../src/core/incidents/persistent-store';
import { createRelay } from '../src/relay/create-relay';
import { fmt, median, ms } from './bench/stats';
import { fillArchive, readAndParse } from './bench/stored';
import { laptopRelayCluster } from '../src/relay/laptop-cluster';

const { values } = parseArgs({ options: { stored: { type: 'string' }, rounds: { type: 'string' }, 'start-in': { type: 'string' } } });
const STORED = Number(values.stored ?? 100_000);
const ROUNDS = Number(values.rounds ?? 3);
const NOWHERE = { url: 'http://127.0.0.1:9', username: 'bench', password: 'bench' };

/** One restart in this process: the baseline, then the store opened and the relay listening; printed as JSON. */
async function startIn(dir: string) {
  const { ms: floor, cpuMs: floorCpuMs } = readAndParse(dir);
  const logger = pino({ level: 'silent' });
  const config = loadConfig({ AGENT_URL: NOWHERE.url, AGENT_SERVER_USERNAME: NOWHERE.username, AGENT_SERVER_PASSWORD: NOWHERE.password, AGENT_SPARE_SESSION: 'off', INGEST_PORT: '0', RELAY_LOG_DIR: join(dir, 'logs'), INCIDENT_RETENTION: String(STORED + 1000) });
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const b = createFileBackends(dir);
  const store = createPersistentStore({ backend: b.open, archive: b.archive, timelineDir: join(dir, 'timelines'), retention: STORED + 1000, logger });
  const storeMs = ms(start);
  const relay = await createRelay({ cluster: laptopRelayCluster(config.RELAY_DATA_DIR), config, store, agent: createAgentClient(NOWHERE), logger });
  await relay.listen({ port: 0 });
  const total = ms(start);
  // The processor time it took, which a machine shared with other work stretches far less than the wall-clock time.
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const held = relay.incidents.list().length;
  console.log(JSON.stringify({ floor, floorCpuMs, storeMs, total, cpuMs, held }));
  // Not closed: a close writes the files again, which is not what is measured (the folder goes with the bench).
  process.exit(0);
}

if (values['start-in']) await startIn(values['start-in']);
else {
  const dir = mkdtempSync(join(tmpdir(), 'bench-restart-'));
  try {
    fillArchive(dir, STORED);
    const rounds: { floor: number; floorCpuMs: number; storeMs: number; total: number; cpuMs: number; held: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--stored', String(STORED), '--start-in', dir], { encoding: 'utf8', maxBuffer: 1 << 20 });
      const round = JSON.parse(out.trim().split('\n').at(-1) as string) as (typeof rounds)[number];
      if (round.held !== STORED) throw new Error(`the relay started with ${round.held} of ${STORED} stored incidents`);
      rounds.push(round);
    }
    const total = median(rounds.map((r) => r.total));
    const floor = median(rounds.map((r) => r.floor));
    console.log(`restart with ${STORED} stored incidents (median of ${ROUNDS}, a process each): ${fmt(total / 1000)} s from opening the store to listening (goal with 100,000: ≤ 5 s); the store ${fmt(median(rounds.map((r) => r.storeMs)) / 1000)} s`);
    console.log(`  reading and parsing its files alone ${fmt(floor / 1000)} s: restart / that = ${fmt(total / floor)}   (each round's: ${rounds.map((r) => fmt(r.total / r.floor)).join(', ')})`);
    const cpu = median(rounds.map((r) => r.cpuMs));
    const floorCpu = median(rounds.map((r) => r.floorCpuMs));
    console.log(`  in processor time: restart ${fmt(cpu / 1000)} s, reading and parsing alone ${fmt(floorCpu / 1000)} s: restart / that = ${fmt(cpu / floorCpu)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
