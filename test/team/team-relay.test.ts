import { describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002 } from '../helpers/relay';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { teamMember, until } from './team-relays';
import { MIGRATIONS } from '../../src/adapters/store-pg/migrations';

const pg = usePostgres();

const post = (relay: Relay, body: unknown) => relay.app.inject({ method: 'POST', url: '/fault-alert', payload: body as object });


describe.skipIf(Boolean(noPostgres))('team relay: several relays on one PostgreSQL', () => {
  it('folds the same fault sent to two relays into one incident, delivered once, seen live by both', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url);
    const b = await teamMember(url);
    const first = await post(a.relay, ad000002());
    expect(first.statusCode).toBe(202);
    const id = first.json().incident_id as string;
    // B has not been told yet, or has: either way its intake must fold onto A's incident.
    const second = await post(b.relay, ad000002());
    expect(second.statusCode).toBe(202);
    expect(second.json()).toMatchObject({ status: 'duplicate', incident_id: id, occurrences: 2 });
    await until(a.relay, () => a.relay.incidents.get(id)?.occurrences === 2);
    expect(a.agent.sessions).toHaveLength(1);
    expect(b.agent.sessions).toHaveLength(0);
    await until(b.relay, () => b.relay.incidents.get(id)?.state === 'running');
    const rows = await a.store.pool.query('SELECT count(*)::int AS n FROM incidents');
    expect(rows.rows[0].n).toBe(1);
  });

  it('answers 503 with a clear error while the database is away, loses no accepted alert, and recovers by itself', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url);
    const accepted = await post(a.relay, ad000002());
    expect(accepted.statusCode).toBe(202);
    await pg.server().stop('fast');
    try {
      const refused = await post(a.relay, ad000002({ neighbor_ip: '10.0.0.9' }));
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.json().error).toMatchObject({ code: 'store_unavailable' });
      expect(refused.json().error.message).toMatch(/database is not reachable.*send it again/);
      expect(JSON.stringify(refused.json())).not.toContain(url);
      const deep = await a.relay.app.inject({ method: 'GET', url: '/health/deep' });
      expect(deep.json().checks.store).toMatchObject({ backend: 'postgresql', ok: false });
    } finally {
      await pg.server().start();
    }
    // Splunk's retry of the refused alert is accepted once the database is back.
    const retried = await post(a.relay, ad000002({ neighbor_ip: '10.0.0.9' }));
    expect(retried.statusCode).toBe(202);
    // The delivery that follows writes on; once committed nothing waits.
    await a.store.flush();
    const deep = await a.relay.app.inject({ method: 'GET', url: '/health/deep' });
    expect(deep.json().checks.store).toMatchObject({ backend: 'postgresql', ok: true, pending_writes: 0, schema_version: Math.max(...MIGRATIONS.map((m) => m.version)), live_relays: 1 });
    const ids = (await a.store.pool.query<{ incident_id: string }>('SELECT incident_id FROM incidents ORDER BY created_at')).rows.map((r) => r.incident_id);
    expect(ids).toEqual([accepted.json().incident_id, retried.json().incident_id]);
  });
});

describe.skipIf(Boolean(noPostgres))('team relay: a relay that dies', () => {
  it('has its queued alert delivered by another relay, with a timeline note', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url, { leaseMs: 1_000 });
    const b = await teamMember(url, { leaseMs: 1_000 });
    a.agent.setDown();
    const sent = await post(a.relay, ad000002());
    expect(sent.json()).toMatchObject({ status: 'queued' });
    const id = sent.json().incident_id as string;
    await a.kill();
    await until(b.relay, () => b.relay.incidents.get(id)?.state === 'running');
    expect(b.agent.sessions).toHaveLength(1);
    expect(b.relay.incidents.timeline(id).map((e) => e.type)).toContain('relay.takeover');
  });

  it('re-delivers a run that had not touched the device, and escalates one that had, never repeating a change', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url, { leaseMs: 1_000 });
    const b = await teamMember(url, { leaseMs: 1_000 });
    const first = (await post(a.relay, ad000002())).json().incident_id as string;
    const second = (await post(a.relay, ad000002({ neighbor_ip: '10.0.0.7' }))).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(first)?.state === 'running' && a.relay.incidents.get(second)?.state === 'running');
    // The second run's change was sent to the router before its relay died.
    a.relay.incidents.update(second, () => ({ application: { status: 'applied', device: 'R1', at: new Date().toISOString(), error: null } }));
    await a.store.flush();
    await a.kill();
    await until(b.relay, () => b.relay.incidents.get(first)?.state === 'running' && b.relay.incidents.get(second)?.state === 'escalated');
    expect(b.agent.sessions.map((s) => s.title?.split(' ')[0])).toEqual([first]);
    expect(b.relay.incidents.get(second)?.outcome?.summary).toMatch(/not repeated/);
    expect(b.relay.incidents.timeline(first).filter((e) => e.type === 'relay.takeover')).toHaveLength(1);
  });
});

describe.skipIf(Boolean(noPostgres))('team relay: a relay thought dead', () => {
  it('stops its own run once another relay has taken the incident over, so two runs never share a fault', async () => {
    const url = await pg.freshDatabase();
    // A beats once, at start, then falls silent (a long pause) while it still runs and listens.
    const a = await teamMember(url, { leaseMs: 1_000, heartbeatMs: 600_000 });
    const b = await teamMember(url, { leaseMs: 1_000 });
    const id = (await post(a.relay, ad000002())).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(id)?.state === 'running');
    const first = a.relay.incidents.get(id)?.session_id as string;
    await until(b.relay, () => b.relay.incidents.get(id)?.state === 'running' && b.agent.sessions.length === 1);
    await until(a.relay, () => a.agent.aborted.includes(first));
    // A's own view follows the run on B.
    await until(a.relay, () => a.relay.incidents.get(id)?.session_id === b.agent.sessions[0]?.id);
    expect(a.agent.sessions).toHaveLength(1);
  });
});

describe.skipIf(Boolean(noPostgres))('team relay: decisions', () => {
  it('a decision received by another relay reaches the run; the second decision gets 409 naming who decided', async () => {
    const url = await pg.freshDatabase();
    const ops = await import('./operators-fixture');
    const env = ops.operatorsEnv();
    const a = await teamMember(url, { env });
    const b = await teamMember(url, { env });
    const id = (await post(a.relay, ad000002())).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(id)?.state === 'running');
    // The run on A asks for approval (as its change tool would).
    await a.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut the neighbor', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'], rollback: [] });
    await until(b.relay, () => b.relay.incidents.get(id)?.state === 'awaiting_approval');
    // A decision names the request it was shown.
    const request_id = b.relay.incidents.get(id)?.approval_request?.request_id;
    const decided = await b.relay.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${ops.approver.token}` }, payload: { request_id, decision: 'APPROVED' } });
    expect(decided.statusCode).toBe(200);
    // The owner tells its run (and the run goes on: 'approved' may last no longer than that prompt).
    await until(a.relay, () => Boolean(a.relay.incidents.get(id)?.approval?.forwarded_at));
    expect(a.relay.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', by: 'Ana Ruiz', channel: 'api' });
    const session = a.relay.incidents.get(id)?.session_id;
    expect(a.agent.prompts.filter((p) => p.sessionId === session).at(-1)?.text).toMatch(/APPROVED/);
    const late = await a.relay.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${ops.approver.token}` }, payload: { request_id, decision: 'DENIED' } });
    expect(late.statusCode).toBe(409);
    expect(late.json().decided).toMatchObject({ decision: 'APPROVED', by: 'Ana Ruiz', channel: 'api' });
  });
});

describe.skipIf(Boolean(noPostgres))('team relay: repeats', () => {
  it('counts every repeat once when two relays fold the same storm side by side', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url);
    const b = await teamMember(url);
    const id = (await post(a.relay, ad000002())).json().incident_id as string;
    await until(b.relay, () => b.relay.incidents.get(id) !== undefined);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, n) => post(n % 2 ? a.relay : b.relay, ad000002())));
    expect(answers.every((r) => r.statusCode === 202 && r.json().incident_id === id)).toBe(true);
    const row = await a.store.pool.query<{ occurrences: number }>('SELECT occurrences FROM incidents WHERE incident_id = $1', [id]);
    expect(row.rows[0]?.occurrences).toBe(61);
    await until(a.relay, () => a.relay.incidents.get(id)?.occurrences === 61);
  });
});
