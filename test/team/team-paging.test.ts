import { describe, expect, it } from 'vitest';
import { fakePagerDuty } from '../fakes/pagers';
import { ad000002 } from '../helpers/relay';
import { noPostgres, testConnection, untilDatabase, usePostgres } from '../helpers/postgres';
import { teamMember, until } from './team-relays';

const ROUTING_KEY = 'pd-routing-key-team-test';

/** Two relays on one database see the same failed run: the page goes out once, from one of them. */
describe.skipIf(noPostgres)('paging on a team of relays (PostgreSQL)', () => {
  const pg = usePostgres();

  it('sends the page of a failed run exactly once, whichever relay sends it', async () => {
    const url = await pg.freshDatabase();
    const pd = await fakePagerDuty(ROUTING_KEY);
    const env = { PAGERDUTY_ROUTING_KEY: ROUTING_KEY, PAGERDUTY_URL: pd.url, RELAY_PUBLIC_URL: 'https://relay.example.net' };
    const a = await teamMember(url, { relayId: 'relay-a', env });
    const b = await teamMember(url, { relayId: 'relay-b', env });
    // No model on either: the run fails at once, and both relays see it fail.
    a.agent.model = null;
    b.agent.model = null;
    const res = await a.relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() });
    const { incident_id: id } = res.json<{ incident_id: string }>();
    await until(b.relay, () => b.relay.incidents.get(id)?.state === 'failed');
    await pd.untilAccepted(1);
    const db = await testConnection(url);
    try {
      // Both relays queued it under one key: one row, sent, and nothing left to send.
      await untilDatabase(db, `SELECT bool_and(state <> 'pending') AND count(*) = 1 AS ok FROM outbox WHERE stream = 'pager'`);
      const rows = await db.query<{ key: string; state: string }>(`SELECT key, state FROM outbox WHERE stream = 'pager'`);
      expect(rows.rows).toEqual([{ key: `${id}:failed:pagerduty`, state: 'sent' }]);
    } finally {
      await db.end();
    }
    expect(pd.accepted).toMatchObject([{ event_action: 'trigger', dedup_key: id }]);
    expect(pd.received).toHaveLength(1);
  });
});
