import { describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/core/clock';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002 } from '../helpers/relay';
import { people, policyPeopleEnv, type Person } from '../helpers/policy-people';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { teamMember, until } from './team-relays';

const pg = usePostgres();
// The policy's verdict reads the time: pinned to a weekday noon outside any freeze (timers run as usual).
const pinned: Clock = { now: () => new Date('2026-11-28T12:00:00.000Z'), setTimeout: systemClock.setTimeout };

describe.skipIf(Boolean(noPostgres))('team relays: approvals toward a two-person rule', () => {
  it('two eligible people approving at the same moment on two relays are counted once each, and the request is approved once', async () => {
    const url = await pg.freshDatabase();
    const env = policyPeopleEnv();
    const a = await teamMember(url, { env, clock: pinned });
    const b = await teamMember(url, { env, clock: pinned });
    for (const neighbor of ['10.0.0.2', '10.0.0.6', '10.0.0.10']) {
      const id = (await a.relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002({ neighbor_ip: neighbor }) })).json().incident_id as string;
      await until(a.relay, () => a.relay.incidents.get(id)?.state === 'running');
      await a.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut', commands: ['router bgp 65001', `no neighbor ${neighbor} shutdown`], rollback: [] });
      await until(b.relay, () => b.relay.incidents.get(id)?.state === 'awaiting_approval');
      const request_id = a.relay.incidents.get(id)!.approval_request!.request_id;
      const decide = (relay: Relay, who: Person) =>
        relay.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${who.token}` }, payload: { request_id, decision: 'APPROVED' } });
      // Ana on the owner and Carl on the other relay, at the same moment.
      const [onA, onB] = await Promise.all([decide(a.relay, people.ana), decide(b.relay, people.carl)]);
      const answers = [onA, onB].map((r) => `${r.statusCode} ${r.json().standing}`).sort();
      expect(answers, `${onA.body} | ${onB.body}`).toEqual(['200 approved: 2 of 2', '202 recorded: 1 of 2']);
      const votes = await a.store.pool.query('SELECT by_name FROM approval_votes WHERE incident_id = $1 ORDER BY by_name', [id]);
      expect(votes.rows.map((r: { by_name: string }) => r.by_name)).toEqual([people.ana.email, people.carl.email]);
      const tally = await a.store.pool.query('SELECT given FROM approval_tallies WHERE incident_id = $1', [id]);
      expect(tally.rows).toEqual([{ given: 2 }]);
      const decisions = await a.store.pool.query('SELECT decision FROM decisions WHERE incident_id = $1', [id]);
      expect(decisions.rows).toEqual([{ decision: 'APPROVED' }]);
      await until(a.relay, () => a.relay.incidents.get(id)?.approval?.decision === 'APPROVED');
      const counted = a.relay.incidents.timeline(id).filter((e) => e.type === 'approval.vote');
      expect(counted.map((e) => e.by).sort()).toEqual([people.ana.email, people.carl.email]);
      expect(a.relay.incidents.get(id)!.approval_request!.votes?.map((v) => v.by).sort()).toEqual([people.ana.email, people.carl.email]);
      // A second approval by someone already counted, on either relay: counted once, nothing changes.
      const again = await decide(b.relay, people.ana);
      expect(again.statusCode).toBe(409);
    }
  });

  it('the same person on both relays at the same moment counts once: 1 of 2, still pending', async () => {
    const url = await pg.freshDatabase();
    const env = policyPeopleEnv();
    const a = await teamMember(url, { env, clock: pinned });
    const b = await teamMember(url, { env, clock: pinned });
    const id = (await a.relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() })).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(id)?.state === 'running');
    await a.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'], rollback: [] });
    await until(b.relay, () => b.relay.incidents.get(id)?.state === 'awaiting_approval');
    const request_id = a.relay.incidents.get(id)!.approval_request!.request_id;
    const decide = (relay: Relay) => relay.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${people.ana.token}` }, payload: { request_id, decision: 'APPROVED' } });
    const [onA, onB] = await Promise.all([decide(a.relay), decide(b.relay)]);
    expect([onA.statusCode, onB.statusCode].sort(), `${onA.body} | ${onB.body}`).toEqual([202, 409]);
    await until(a.relay, () => (a.relay.incidents.get(id)?.approval_request?.votes?.length ?? 0) === 1);
    expect(a.relay.incidents.get(id)).toMatchObject({ state: 'awaiting_approval', approval: null });
    const tally = await a.store.pool.query('SELECT given FROM approval_tallies WHERE incident_id = $1', [id]);
    expect(tally.rows).toEqual([{ given: 1 }]);
  });
});
