import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { newToken } from '../../src/core/operators/operators';
import { fakePagerDuty } from '../fakes/pagers';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';

const ROUTING_KEY = 'pd-routing-key-for-the-ack-test';
const approver = { ...newToken(), email: 'ana@example.net' };
const viewer = { ...newToken(), email: 'vic@example.net' };

/** A relay with an approver and a viewer, paging a fake PagerDuty, whose runs fail at once (no model). */
async function relayWithPager() {
  const dir = tempDir('fault-relay-ack-');
  const operators = join(dir, 'operators.yaml');
  writeFileSync(operators, stringify({ operators: [
    { name: 'Ana Ruiz', email: approver.email, role: 'approver', token_sha256: approver.sha256 },
    { name: 'Vic Viewer', email: viewer.email, role: 'viewer', token_sha256: viewer.sha256 },
  ] }));
  const pd = await fakePagerDuty(ROUTING_KEY);
  const agent = createStubRuntime();
  agent.model = null;
  const relay = await relayForTest({ agent, env: { OPERATORS_FILE: operators, PAGERDUTY_ROUTING_KEY: ROUTING_KEY, PAGERDUTY_URL: pd.url, RELAY_DATA_DIR: join(dir, 'data'), RELAY_PUBLIC_URL: 'https://relay.example.net' } });
  onTestFinished(() => relay.close());
  return { relay, pd };
}

const acknowledge = (relay: Awaited<ReturnType<typeof relayWithPager>>['relay'], id: string, token?: string) =>
  relay.app.inject({ method: 'POST', url: `/incidents/${id}/acknowledge`, headers: token ? { authorization: `Bearer ${token}` } : {}, payload: {} });

describe('POST /incidents/<id>/acknowledge', () => {
  it('acknowledges with a personal token: on the timeline, and the page in PagerDuty is acknowledged', async () => {
    const { relay, pd } = await relayWithPager();
    const created = await relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() });
    const { incident_id: id } = created.json<{ incident_id: string }>();
    // The run cannot start (no model): it ends failed, which pages at once.
    await pd.untilAccepted(1);
    expect(pd.accepted[0]).toMatchObject({ event_action: 'trigger', dedup_key: id, payload: { source: 'R1', class: 'failed' } });

    expect((await acknowledge(relay, id)).statusCode).toBe(401);
    const refused = await acknowledge(relay, id, viewer.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: { code: 'not_an_approver', message: 'vic@example.net is a viewer: only approvers acknowledge incidents.' } });
    expect((await acknowledge(relay, 'INC-nope', approver.token)).statusCode).toBe(404);

    const answer = await acknowledge(relay, id, approver.token);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ status: 'acknowledged', incident_id: id, by: 'Ana Ruiz', channel: 'api' });
    expect(relay.incidents.timeline(id).filter((e) => e.type === 'incident.acknowledged')).toMatchObject([{ by: 'Ana Ruiz', channel: 'api' }]);
    await pd.untilAccepted(2);
    expect(pd.accepted[1]).toEqual({ routing_key: ROUTING_KEY, event_action: 'acknowledge', dedup_key: id });

    // Once: a second person is told who took it.
    const again = await acknowledge(relay, id, approver.token);
    expect(again.json()).toMatchObject({ already: true, by: 'Ana Ruiz' });
    expect(relay.incidents.timeline(id).filter((e) => e.type === 'incident.acknowledged')).toHaveLength(1);
  });
});
