import { describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002, silent } from '../helpers/relay';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { manualClock } from '../unit/incidents/in-memory-incidents';
import { teamMember, until } from './team-relays';

const pg = usePostgres();
const post = (relay: Relay, body: unknown) => relay.app.inject({ method: 'POST', url: '/fault-alert', payload: body as object });
const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];

describe.skipIf(Boolean(noPostgres))('team relay: one owner per incident', () => {
  it("a relay started beside another's pending approval arms nothing for it: past its deadline there, only the owner expires it, once", async () => {
    const url = await pg.freshDatabase();
    const env = { APPROVAL_TTL: '10m' };
    const a = await teamMember(url, { env });
    const id = (await post(a.relay, ad000002())).json().incident_id as string;
    await until(a.relay, () => a.relay.incidents.get(id)?.state === 'running');
    await a.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut the neighbor', commands: REPAIR });
    await a.store.flush();

    // B starts while the approval is pending (its recovery sees it), on a clock it moves by hand.
    const clock = manualClock(new Date().toISOString());
    const b = await teamMember(url, { env, clock });
    await until(b.relay, () => b.relay.incidents.get(id)?.state === 'awaiting_approval');
    clock.advance(11 * 60_000);
    await b.store.flush();

    // B is past the deadline, but the incident is A's: nothing expired, nothing written by B.
    expect(b.relay.incidents.get(id)?.approval_request?.status).toBe('pending');
    expect(b.relay.incidents.get(id)?.state).toBe('awaiting_approval');
    const shared = await a.store.loadTimeline(id);
    expect(shared.filter((e) => e.type === 'approval.expired')).toEqual([]);

    // The owner still decides the approval's fate: a person's decision on B reaches it and counts.
    const request_id = b.relay.incidents.get(id)?.approval_request?.request_id;
    const decided = await b.relay.decide({ incident_id: id, request_id: request_id, decision: 'DENIED', who: { id: 'ana@example.com', authenticated_by: 'personal_token' }, channel: 'api', reason: 'not now' });
    expect(decided.status).toBe('accepted');
    await until(a.relay, () => a.relay.incidents.get(id)?.approval?.decision === 'DENIED');
    await a.store.flush();
    const after = await a.store.loadTimeline(id);
    expect(after.filter((e) => e.type === 'approval.decided')).toHaveLength(1);
    expect(after.filter((e) => e.type === 'approval.expired')).toEqual([]);
  });

  it("a run another relay owns is not mapped here: a session error about it changes nothing and writes no line", async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url);
    const b = await teamMember(url);
    const id = (await post(a.relay, ad000002())).json().incident_id as string;
    await until(b.relay, () => b.relay.incidents.get(id)?.state === 'running');
    const sessionId = b.relay.incidents.get(id)?.session_id as string;
    const lines = (await a.store.loadTimeline(id)).length;
    // An event about A's session reaching B's mapper (relays sharing one runtime, or a late one after a
    // takeover), wired as createRelay wires it: ownership from the team.
    const mapped = await import('../../src/adapters/agent/runtime-events');
    const mapper = mapped.createRuntimeEventMapper({
      incidents: b.relay.incidents,
      agent: { getSession: async () => ({ id: sessionId }) },
      logger: silent,
      owns: (incidentId) => b.team.owns(incidentId),
    });
    mapper.handle({ type: 'session.error', properties: { sessionID: sessionId, error: { name: 'UnknownError', data: { message: 'late' } } } });
    await mapper.settled();
    await b.store.flush();
    expect(b.relay.incidents.get(id)?.state).toBe('running');
    expect((await a.store.loadTimeline(id)).length).toBe(lines);
  });
});
