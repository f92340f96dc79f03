import { describe, expect, it } from 'vitest';
import { auditViewOf } from '../../src/adapters/audit/audited-entries';
import { auditEventSchema } from '../../src/adapters/audit/schema';
import { startFakeHec } from '../fakes/splunk-hec';
import { ad000002 } from '../helpers/relay';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { teamMember, until } from './team-relays';

const pg = usePostgres();
const HEC_TOKEN = 'hec-token-7a1d3e5f-0b2c-4d6e-8f9a-1b3c5d7e9f02';

describe.skipIf(Boolean(noPostgres))('team relay: the audit stream', () => {
  it('a decision taken on the other relay reaches Splunk once, from the shared outbox, and both relays show it delivered', async () => {
    const hec = await startFakeHec({ token: HEC_TOKEN });
    try {
      const url = await pg.freshDatabase();
      const ops = await import('./operators-fixture');
      const env = { ...ops.operatorsEnv(), SPLUNK_HEC_URL: hec.url, SPLUNK_HEC_TOKEN: HEC_TOKEN };
      const a = await teamMember(url, { env });
      const b = await teamMember(url, { env });
      const posted = await a.relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() });
      const id = posted.json().incident_id as string;
      await until(a.relay, () => a.relay.incidents.get(id)?.state === 'running');
      await a.relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'], rollback: [] });
      await until(b.relay, () => b.relay.incidents.get(id)?.state === 'awaiting_approval');
      const request_id = a.relay.incidents.get(id)!.approval_request!.request_id;
      const decided = await b.relay.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${ops.approver.token}` }, payload: { request_id, decision: 'APPROVED' } });
      expect(decided.statusCode).toBe(200);
      for (const member of [a, b]) await until(member.relay, () => auditViewOf(member.relay.incidents.timeline(id)).state === 'sent');
      const sent = hec.requests.flatMap((r) => r.events.map((e) => auditEventSchema.parse(e.event)));
      expect(sent.filter((e) => e.type === 'decision')).toEqual([expect.objectContaining({ incident_id: id, request_id, outcome: 'APPROVED', channel: 'api' })]);
      expect(new Set(sent.map((e) => e.id)).size).toBe(sent.length);
    } finally {
      await hec.close();
    }
  });
});
