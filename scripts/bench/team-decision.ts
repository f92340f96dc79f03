/**
 * npm run bench:team, part 3: a person's decision on a team relay, from POST /incidents/:id/decision
 * until the relay running the incident has told its run (the HUMAN OPERATOR RESPONSE prompt
 * reaches its runtime), made on that relay (owner) and on the other one (non-owner: recorded
 * there, then NOTIFY, then applied by the owner). Both on one database, in one process,
 * alternating, so both meet the same load.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { newToken } from '../../src/core/operators/operators';
import type { LocalPostgres } from '../../src/adapters/store-pg/local-server';
import { fmt, pct, within } from './stats';
import { benchMember, until, type BenchMember } from './team-member';

/** An incident on `owner`, running, with an approval request pending that `other` has seen too. */
async function pendingRequest(owner: BenchMember, other: BenchMember, n: number): Promise<{ id: string; request_id: string }> {
  // A fresh incident for each decision: one incident's timeline grows with each cycle, and every
  // read-back of another relay's change reads its lines, so a reused one would slow the later samples.
  const alert = buildSplunkAlert({ device: 'R1', neighbor: `10.${(n >> 8) & 255}.${n & 255}.2` });
  const posted = await owner.relay.app.inject({ method: 'POST', url: '/fault-alert', payload: alert as object });
  const id = posted.json<{ incident_id: string }>().incident_id;
  await until(owner.relay, () => owner.relay.incidents.get(id)?.state === 'running', `${id} running`);
  // As the run's change tool would ask.
  await owner.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut the neighbor', commands: ['router bgp 65001', `no neighbor 10.0.${n & 255}.2 shutdown`], rollback: [] });
  const request_id = owner.relay.incidents.get(id)?.approval_request?.request_id as string;
  // The engineer decides on what their tray shows: the other relay knows the request first.
  await until(other.relay, () => other.relay.incidents.get(id)?.approval_request?.request_id === request_id, `${id}'s request on the other relay`);
  return { id, request_id };
}

/** The run is finished (as its agent would report), so active runs never pile up between samples. */
async function finish(owner: BenchMember, other: BenchMember, id: string): Promise<void> {
  await until(owner.relay, () => owner.relay.incidents.get(id)?.state === 'running', `${id} running after the decision`);
  owner.relay.incidents.transition(id, 'resolve', () => ({ outcome: { kind: 'resolved', summary: 'bench', at: new Date().toISOString() } }));
  await owner.store.flush();
  await until(other.relay, () => other.relay.incidents.get(id)?.state === 'resolved', `${id} resolved on the other relay`);
}

export async function decisionLatency(server: LocalPostgres, samples: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fault-relay-bench-decide-'));
  const approver = newToken();
  const ops = join(dir, 'operators.yaml');
  writeFileSync(ops, stringify({ operators: [{ name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: approver.sha256 }] }));
  const env = { OPERATORS_FILE: ops, RELAY_LOG_DIR: join(dir, 'logs') };
  const members: BenchMember[] = [];
  try {
    const url = await server.createDatabase('bench_decide');
    const a = await benchMember(url, env);
    members.push(a);
    const b = await benchMember(url, env);
    members.push(b);
    const onOwner: number[] = [];
    const onOther: number[] = [];
    const warmUp = 20;
    for (let n = 0; n < warmUp + 2 * samples; n++) {
      // Alternating: the owner's own path, then the other relay's, under the same conditions.
      const via = n % 2 === 0 ? a : b;
      const { id, request_id } = await pendingRequest(a, b, n);
      const told = a.nextHumanResponse();
      const started = process.hrtime.bigint();
      const res = await via.relay.app.inject({
        method: 'POST',
        url: `/incidents/${id}/decision`,
        headers: { authorization: `Bearer ${approver.token}` },
        payload: { request_id, decision: 'APPROVED' },
      });
      if (res.statusCode !== 200) throw new Error(`decision ${n} answered ${res.statusCode}: ${res.body}`);
      const reached = await within(told, 10_000, `decision ${n} to reach the owner's runtime`);
      const took = Number(reached - started) / 1e6;
      if (n >= warmUp) (via === a ? onOwner : onOther).push(took);
      await finish(a, b, id);
    }
    const o50 = pct(onOwner, 50);
    const o99 = pct(onOwner, 99);
    const x50 = pct(onOther, 50);
    const x99 = pct(onOther, 99);
    console.log(`\ndecision (POST /incidents/:id/decision, an approver's token) until the owner's runtime has the HUMAN OPERATOR RESPONSE (n=${samples} each, alternating)`);
    console.log(`  made on the owner relay       p50 ${fmt(o50)} ms  p99 ${fmt(o99)} ms`);
    console.log(`  made on the other relay       p50 ${fmt(x50)} ms  p99 ${fmt(x99)} ms`);
    console.log(`  other / owner: p50 ${fmt(x50 / o50)}   p99 ${fmt(x99 / o99)}`);
  } finally {
    for (const m of members.reverse()) await m.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
