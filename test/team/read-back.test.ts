import { describe, expect, it } from 'vitest';
import { ad000002 } from '../helpers/relay';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { teamMember, until } from './team-relays';

const pg = usePostgres();

describe.skipIf(Boolean(noPostgres))('team relay: following another relay', () => {
  it('reads another relay\'s change again when the read failed, so its view does not stay on the old state', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url);
    const b = await teamMember(url);
    const id = (await a.relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() })).json().incident_id as string;
    await until(b.relay, () => b.relay.incidents.get(id)?.state === 'running');
    // B's next read of A's changes fails (as when its connection is cut mid-query); the notice came once.
    const read = b.store.refresh.bind(b.store);
    const failed: string[][] = [];
    b.store.refresh = (ids) => {
      if (failed.length === 0) {
        failed.push([...ids]);
        return Promise.reject(new Error('Connection terminated unexpectedly'));
      }
      return read(ids);
    };
    await a.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut the neighbor', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'], rollback: [] });
    await until(b.relay, () => b.relay.incidents.get(id)?.state === 'awaiting_approval');
    expect(failed).toEqual([[id]]);
    expect(b.relay.incidents.get(id)?.approval_request?.request_id).toBe(a.relay.incidents.get(id)?.approval_request?.request_id);
  });
});
