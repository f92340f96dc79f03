/**
 * npm run bench:team, part 4: does a second relay add intake capacity? Alerts per second into one
 * relay and into two relays on one database, each relay a process of its own (team-relay-worker.ts),
 * the same total load (requests in flight) spread round robin over the relays, as a load balancer
 * would. Two kinds of alerts:
 *   new faults  each alert a fault never seen (created, durable, delivered to the runtime);
 *   repeats     alerts of faults already open (folded into them: a count, made durable).
 * The one-relay and the two-relay team run side by side, each on its own database, and take turns
 * round by round, so both meet the same load from the rest of the machine; the median round counts.
 * With `relayCpus`, each relay process is held to that much of a CPU (cpu-limit.ts): the relays are
 * then the limit, as on machines of their own, and not the database and sender that share this box.
 * Also printed: the relays' CPU time per alert (all relays of the team together), which the rest of
 * the machine does not change: when two relays spend more per alert than one, the second relay's
 * capacity goes to team work (reading back each other's changes), not to alerts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import type { LocalPostgres } from '../../src/adapters/store-pg/local-server';
import { limitCpu, removeStaleGroups, type CpuLimit } from './cpu-limit';
import { fmt, median, ms, within } from './stats';
import type { WorkerCommand, WorkerMessage } from './team-relay-worker';

const repoRoot = resolve(import.meta.dirname, '../..');
/** The workers' MAX_ACTIVE_RUNS (the most the relay allows). */
const MAX_ACTIVE_RUNS = 100;

interface Worker {
  url: string;
  pool: Pool;
  proc: ChildProcess;
  ask(command: WorkerCommand): Promise<WorkerMessage>;
}

const CGROUP_PREFIX = 'fault-relay-bench-';

async function startWorker(databaseUrl: string, dir: string, connections: number, limit?: { cpus: number; groups: CpuLimit[] }): Promise<Worker> {
  const proc = fork(join(import.meta.dirname, 'team-relay-worker.ts'), [], {
    cwd: repoRoot,
    // BENCH_CPU_PROF=<dir>: each relay writes a CPU profile there when it stops (node --cpu-prof).
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, BENCH_DIR: dir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (limit && proc.pid) {
    const group = limitCpu(proc.pid, limit.cpus, `${CGROUP_PREFIX}${proc.pid}`);
    if (typeof group === 'string') {
      proc.kill('SIGKILL');
      throw new Error(group);
    }
    limit.groups.push(group);
  }
  const next = () =>
    new Promise<WorkerMessage>((resolveMessage, reject) => {
      const onExit = (code: number | null) => reject(new Error(`a bench relay exited (${code})`));
      proc.once('exit', onExit);
      proc.once('message', (m: WorkerMessage) => {
        proc.off('exit', onExit);
        resolveMessage(m);
      });
    });
  const ready = await within(next(), 60_000, 'a bench relay to start');
  if (ready.type !== 'ready') throw new Error(`a bench relay said ${ready.type} first`);
  return {
    url: ready.url,
    pool: new Pool(ready.url, { connections }),
    proc,
    ask(command) {
      const answer = next();
      proc.send(command);
      return within(answer, 60_000, `a bench relay to ${command.type}`);
    },
  };
}

async function stopWorker(w: Worker): Promise<void> {
  await w.pool.close().catch(() => {});
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => w.proc.once('exit', () => r()));
  w.proc.send({ type: 'stop' } satisfies WorkerCommand);
  const timer = setTimeout(() => w.proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** `bodies` POSTed with `inFlight` requests at once, request n to relay n mod k; alerts per second. */
async function send(relays: Worker[], bodies: string[], inFlight: number): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < bodies.length) {
      const n = next++;
      const relay = relays[n % relays.length] as Worker;
      const res = await relay.pool.request({ path: '/fault-alert', method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[n] });
      const text = await res.body.text();
      if (res.statusCode !== 202) throw new Error(`alert ${n} answered ${res.statusCode}: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return bodies.length / (ms(started) / 1000);
}

interface Usage {
  /** CPU milliseconds. */
  cpu: number;
  /** Queries sent to the database (round trips). */
  queries: number;
}

/** What the relays' processes have used so far, together. */
async function usageOf(relays: Worker[]): Promise<Usage> {
  const answers = await Promise.all(relays.map((r) => r.ask({ type: 'cpu' })));
  return answers.reduce((sum, a) => (a.type === 'cpu' ? { cpu: sum.cpu + a.ms, queries: sum.queries + a.queries } : sum), { cpu: 0, queries: 0 });
}

const add = (total: Usage, before: Usage, after: Usage) => {
  total.cpu += after.cpu - before.cpu;
  total.queries += after.queries - before.queries;
};

const alert = (device: string, n: number) => JSON.stringify(buildSplunkAlert({ device, neighbor: `10.${(n >> 8) & 255}.${n & 255}.2` }));

export interface ThroughputOptions {
  rounds: number;
  faults: number;
  repeats: number;
  inFlight: number;
  /** Each relay process held to this much of a CPU; none: the relays share the machine as they can. */
  relayCpus?: number;
}

export async function intakeThroughput(server: LocalPostgres, opts: ThroughputOptions): Promise<void> {
  if (opts.faults > MAX_ACTIVE_RUNS) throw new Error(`--faults is at most ${MAX_ACTIVE_RUNS}: a round's new faults must all be delivered at once on one relay`);
  const dir = mkdtempSync(join(tmpdir(), 'fault-relay-bench-throughput-'));
  const workers: Worker[] = [];
  const limit = opts.relayCpus ? { cpus: opts.relayCpus, groups: [] as CpuLimit[] } : undefined;
  if (limit) removeStaleGroups(CGROUP_PREFIX);
  try {
    const teams: { name: string; relays: Worker[]; url: string; newRps: number[]; repeatRps: number[]; new: Usage; repeat: Usage }[] = [];
    for (const k of [1, 2]) {
      const url = await server.createDatabase(`bench_throughput_${k}${limit ? '_limited' : ''}`);
      const relays: Worker[] = [];
      for (let i = 0; i < k; i++) {
        const w = await startWorker(url, dir, opts.inFlight, limit);
        workers.push(w);
        relays.push(w);
      }
      teams.push({ name: k === 1 ? 'one relay' : 'two relays', relays, url, newRps: [], repeatRps: [], new: { cpu: 0, queries: 0 }, repeat: { cpu: 0, queries: 0 } });
    }
    // Warm-up round for each (JIT, connections, first incidents), not counted.
    for (const t of teams) {
      await send(t.relays, Array.from({ length: opts.faults }, (_, n) => alert('WARM', n)), opts.inFlight);
      await Promise.all(t.relays.map((r) => r.ask({ type: 'settle' })));
    }
    for (let round = 0; round < opts.rounds; round++) {
      // Which team goes first alternates too.
      for (const t of round % 2 ? [...teams].reverse() : teams) {
        const before = await usageOf(t.relays);
        t.newRps.push(await send(t.relays, Array.from({ length: opts.faults }, (_, n) => alert(`NEW${round}`, n)), opts.inFlight));
        add(t.new, before, await usageOf(t.relays));
        // Between rounds, untimed: the runs end, so each round starts with none active (MAX_ACTIVE_RUNS).
        const settled = await Promise.all(t.relays.map((r) => r.ask({ type: 'settle' })));
        if (settled.some((s) => s.type !== 'settled' || s.left !== 0)) throw new Error(`${t.name}: incidents left undelivered after round ${round}: ${JSON.stringify(settled)}`);
        // The finished runs' session logs are written (by every relay) before the next round is timed.
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    // Ten open faults (created on each relay in turn), then storms of their repeats.
    const repeatFaults = Array.from({ length: 10 }, (_, n) => alert('REP', n));
    for (const t of teams) await send(t.relays, repeatFaults, 1);
    const storm = Array.from({ length: opts.repeats }, (_, n) => repeatFaults[n % repeatFaults.length] as string);
    for (let round = 0; round <= opts.rounds; round++) {
      for (const t of round % 2 ? [...teams].reverse() : teams) {
        const before = await usageOf(t.relays);
        const rps = await send(t.relays, storm, opts.inFlight);
        if (round === 0) continue;
        t.repeatRps.push(rps);
        add(t.repeat, before, await usageOf(t.relays));
      }
    }
    for (const t of teams) {
      // Every repeat answered 202 is counted once in the database, whichever relay folded it.
      const db = new pg.Client({ connectionString: t.url });
      await db.connect();
      const row = await db.query<{ occ: number }>("SELECT sum(occurrences)::int AS occ FROM incidents WHERE NOT terminal AND doc->>'device_hostname' = 'REP'");
      await db.end();
      const expected = repeatFaults.length + opts.repeats * (opts.rounds + 1);
      if (row.rows[0]?.occ !== expected) throw new Error(`${t.name}: ${row.rows[0]?.occ} repeats counted in the database, ${expected} answered 202`);
    }
    const [one, two] = teams as [(typeof teams)[number], (typeof teams)[number]];
    const held = limit ? `each relay held to ${limit.cpus} CPU by a cgroup, as on a machine of its own` : `relays, database and sender sharing this machine's ${os.availableParallelism()} cores`;
    console.log(`\nintake throughput, one relay vs two on one database (${held}; each relay its own process; ${opts.inFlight} requests in flight in total; median of ${opts.rounds} alternating rounds)`);
    console.log(`  new faults (${opts.faults} a round)   one ${fmt(median(one.newRps))} alerts/s   two ${fmt(median(two.newRps))} alerts/s   two / one = ${fmt(median(two.newRps) / median(one.newRps))}`);
    console.log(`  repeats (${opts.repeats} a round)    one ${fmt(median(one.repeatRps))} alerts/s   two ${fmt(median(two.repeatRps))} alerts/s   two / one = ${fmt(median(two.repeatRps) / median(one.repeatRps))}`);
    // Read just before and after each round's alerts: the untimed settling between rounds is left out.
    const perAlert = (cpu: number, alerts: number) => cpu / (alerts * opts.rounds);
    const [n1, n2] = [perAlert(one.new.cpu, opts.faults), perAlert(two.new.cpu, opts.faults)];
    const [r1, r2] = [perAlert(one.repeat.cpu, opts.repeats), perAlert(two.repeat.cpu, opts.repeats)];
    console.log(`  relay CPU per alert (all the team's relays): new fault one ${fmt(n1)} ms, two ${fmt(n2)} ms (${fmt(n2 / n1)}x); repeat one ${fmt(r1)} ms, two ${fmt(r2)} ms (${fmt(r2 / r1)}x)`);
    // What the team's work adds (each relay reads back the other's changes, batches are half as full)
    // is counted in round trips; what each round trip costs in CPU is the machine's share of the rest.
    const [q1, q2] = [perAlert(one.new.queries, opts.faults), perAlert(two.new.queries, opts.faults)];
    const [s1, s2] = [perAlert(one.repeat.queries, opts.repeats), perAlert(two.repeat.queries, opts.repeats)];
    const perTrip = (u: Usage) => u.cpu / Math.max(1, u.queries);
    console.log(`  database round trips per alert: new fault one ${fmt(q1)}, two ${fmt(q2)} (${fmt(q2 / q1)}x); repeat one ${fmt(s1)}, two ${fmt(s2)} (${fmt(s2 / s1)}x)`);
    console.log(`  relay CPU per round trip, new faults: one ${fmt(perTrip(one.new))} ms, two ${fmt(perTrip(two.new))} ms (${fmt(perTrip(two.new) / perTrip(one.new))}x)`);
    // Where each relay has a core of its own and its CPU is the limit (not this machine when it has two
    // cores for the relays, the database and the sender): two relays' capacity over one relay's.
    if (!limit) console.log(`  with a core per relay, CPU-bound: two / one = ${fmt((2 * n1) / n2)} for new faults, ${fmt((2 * r1) / r2)} for repeats (this machine: ${os.availableParallelism()} cores)`);
  } finally {
    for (const w of workers) await stopWorker(w).catch(() => w.proc.kill('SIGKILL'));
    for (const group of limit?.groups ?? []) group.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}
