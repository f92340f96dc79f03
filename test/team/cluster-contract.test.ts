import { describe, expect, it, onTestFinished } from 'vitest';
import type { Relay, RelayCluster } from '../../src/relay/create-relay';
import { laptopRelayCluster } from '../../src/relay/laptop-cluster';
import { ad000002, relayForTest } from '../helpers/relay';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { teamMember, until } from './team-relays';

/**
 * The `Cluster` port's contract (src/core/cluster/cluster.ts), passed alike by a relay alone and by a
 * team relay on the real database: what the domain may count on without asking which it has.
 */
interface Member {
  relay: Relay;
  cluster: RelayCluster;
  /** What the shared record holds once everything written has landed (the incident's timeline types). */
  timeline(id: string): Promise<string[]>;
}

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const person = { id: 'ana@example.net', authenticated_by: 'personal_token' as const };

function contract(name: string, skip: boolean, make: () => Promise<Member>) {
  describe.skipIf(skip)(`the cluster port: ${name}`, () => {
    it('the new-incident lock runs the function and answers its value, or its error', async () => {
      const { cluster } = await make();
      let runs = 0;
      expect(await cluster.newIncidentLock('fault-1', async () => ++runs)).toBe(1);
      await expect(cluster.newIncidentLock('fault-1', async () => Promise.reject(new Error('no incident')))).rejects.toThrow('no incident');
      expect(runs).toBe(1);
    });

    it('owns, may deliver and has delivered the incident it created', async () => {
      const { relay, cluster } = await make();
      const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() })).json<{ incident_id: string }>().incident_id;
      await until(relay, () => relay.incidents.get(id)?.state === 'running');
      expect(cluster.owns(id)).toBe(true);
      expect(cluster.mayDeliver(id)).toBe(true);
    });

    it('a decision recorded twice counts once: the second is told who decided, and the record holds one decision', async () => {
      const m = await make();
      const { relay } = m;
      const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() })).json<{ incident_id: string }>().incident_id;
      await until(relay, () => relay.incidents.get(id)?.state === 'running');
      const asked = await relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut the neighbor', commands: REPAIR });
      const request_id = asked.status === 'pending' ? asked.request_id : '';
      const command = { incident_id: id, request_id, decision: 'APPROVED' as const, who: person, channel: 'api' };
      expect(await relay.decide(command)).toMatchObject({ status: 'accepted', approval: { by: person.id, decision: 'APPROVED' } });
      expect(await relay.decide({ ...command, decision: 'DENIED', who: { ...person, id: 'bo@example.net' } })).toMatchObject({ status: 'already_decided', approval: { by: person.id, decision: 'APPROVED' } });
      expect(await relay.decide(command)).toMatchObject({ status: 'already_decided' });
      expect((await m.timeline(id)).filter((type) => type === 'approval.decided')).toHaveLength(1);
    });
  });
}

contract('a relay alone (the laptop)', false, async () => {
  const cluster = laptopRelayCluster(tempDir('cluster-contract-'));
  const relay = await relayForTest({ agent: createStubRuntime(), extraChannels: () => ['desktop'], cluster });
  onTestFinished(() => relay.close());
  return { relay, cluster, timeline: async (id) => relay.incidents.timeline(id).map((e) => e.type) };
});

const pg = usePostgres();
contract('a team relay on PostgreSQL', Boolean(noPostgres), async () => {
  const member = await teamMember(await pg.freshDatabase());
  return {
    relay: member.relay,
    cluster: member.cluster,
    timeline: async (id) => {
      await member.store.flush();
      return (await member.store.loadTimeline(id)).map((e) => e.type);
    },
  };
});
