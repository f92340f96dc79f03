import { describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002 } from '../helpers/relay';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { teamMember, until } from './team-relays';

const pg = usePostgres();


describe.skipIf(Boolean(noPostgres))('team relay: two decisions at once', () => {
  it('the first decision is told it won, on whichever relay it arrived; the other gets 409 naming it; database and incident agree', async () => {
    const url = await pg.freshDatabase();
    const ops = await import('./operators-fixture');
    const env = ops.operatorsEnv();
    const a = await teamMember(url, { env });
    const b = await teamMember(url, { env });
    for (const neighbor of ['10.0.0.2', '10.0.0.6', '10.0.0.10']) {
      const posted = await a.relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002({ neighbor_ip: neighbor }) });
      const id = posted.json().incident_id as string;
      await until(a.relay, () => a.relay.incidents.get(id)?.state === 'running');
      await a.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut', commands: ['router bgp 65001', `no neighbor ${neighbor} shutdown`], rollback: [] });
      await until(b.relay, () => b.relay.incidents.get(id)?.state === 'awaiting_approval');
      const request_id = a.relay.incidents.get(id)!.approval_request!.request_id;
      const decide = (relay: Relay, decision: string) =>
        relay.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${ops.approver.token}` }, payload: { request_id, decision } });
      // On the owner and on the other relay at the same moment.
      const [onA, onB] = await Promise.all([decide(a.relay, 'APPROVED'), decide(b.relay, 'DENIED')]);
      const codes = [onA.statusCode, onB.statusCode].sort();
      expect(codes, `${onA.body} | ${onB.body}`).toEqual([200, 409]);
      const [winner, loser] = onA.statusCode === 200 ? [onA, onB] : [onB, onA];
      const won = winner.json().decision as string;
      expect(loser.json()).toMatchObject({ error: { code: 'already_decided' }, decided: { decision: won, channel: 'api' } });
      const row = await a.store.pool.query('SELECT decision FROM decisions WHERE incident_id = $1', [id]);
      expect(row.rows.map((r: { decision: string }) => r.decision)).toEqual([won]);
      await until(a.relay, () => a.relay.incidents.get(id)?.approval?.decision === won);
    }
  });
});
