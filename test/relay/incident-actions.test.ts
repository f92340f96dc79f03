import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { newToken } from '../../src/core/operators/operators';
import { fakePagerDuty } from '../fakes/pagers';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';

const ROUTING_KEY = 'pd-routing-key-for-the-actions-test';
const ana = { ...newToken(), email: 'ana@example.net' };
const bo = { ...newToken(), email: 'bo@example.net' };
const vic = { ...newToken(), email: 'vic@example.net' };

/** A relay with two approvers and a viewer, paging a fake PagerDuty; `model: null` makes every run fail at once. */
async function relayWith(model: string | null) {
  const dir = tempDir('fault-relay-actions-');
  const operators = join(dir, 'operators.yaml');
  writeFileSync(
    operators,
    stringify({
      operators: [
        { name: 'Ana Ruiz', email: ana.email, role: 'approver', token_sha256: ana.sha256 },
        { name: 'Bo Li', email: bo.email, role: 'approver', token_sha256: bo.sha256 },
        { name: 'Vic Viewer', email: vic.email, role: 'viewer', token_sha256: vic.sha256 },
      ],
    }),
  );
  const pd = await fakePagerDuty(ROUTING_KEY);
  const agent = createStubRuntime();
  agent.model = model;
  const relay = await relayForTest({ agent, env: { OPERATORS_FILE: operators, PAGERDUTY_ROUTING_KEY: ROUTING_KEY, PAGERDUTY_URL: pd.url, RELAY_DATA_DIR: join(dir, 'data'), MAX_ACTIVE_RUNS: '4' } });
  onTestFinished(() => relay.close());
  const post = (id: string, action: string, token: string | undefined, payload: object = {}) =>
    relay.app.inject({ method: 'POST', url: `/incidents/${id}/${action}`, headers: token ? { authorization: `Bearer ${token}` } : {}, payload });
  const raise = async (vars: Record<string, string> = {}) => (await relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002(vars) })).json<{ incident_id: string }>().incident_id;
  return { relay, pd, post, raise };
}

const entries = (relay: Awaited<ReturnType<typeof relayWith>>['relay'], id: string, type: string) => relay.incidents.timeline(id).filter((e) => e.type === type);

describe('acting on an incident: assign, close, retry', () => {
  it('assigns to a person of the team, by an approver only; a name not in OPERATORS_FILE is refused', async () => {
    const { relay, post, raise } = await relayWith(null);
    const id = await raise();
    expect((await post(id, 'assign', undefined, { to: bo.email })).statusCode).toBe(401);
    const viewer = await post(id, 'assign', vic.token, { to: bo.email });
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json()).toMatchObject({ error: { code: 'not_an_approver', message: expect.stringMatching(/only approvers assign incidents/) } });
    const stranger = await post(id, 'assign', ana.token, { to: 'mallory@example.org' });
    expect(stranger.statusCode).toBe(400);
    expect(stranger.json()).toMatchObject({ error: { code: 'unknown_person' } });
    expect((await post('INC-nope', 'assign', ana.token, { to: bo.email })).statusCode).toBe(404);
    expect(entries(relay, id, 'incident.assigned')).toHaveLength(0);

    const answer = await post(id, 'assign', ana.token, { to: 'BO@example.net' });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ status: 'assigned', to: 'Bo Li', to_email: bo.email, by: 'Ana Ruiz' });
    expect(entries(relay, id, 'incident.assigned')).toMatchObject([{ to: 'Bo Li', by: 'Ana Ruiz' }]);
  });

  it('closes a finished run with a reason, once, and the page is resolved with it; a running one is refused', async () => {
    const { relay, pd, post, raise } = await relayWith(null);
    const id = await raise();
    await pd.untilAccepted(1);
    expect(relay.incidents.get(id)?.state).toBe('failed');
    const noReason = await post(id, 'close', ana.token, { reason: '   ' });
    expect(noReason.statusCode).toBe(400);
    expect(entries(relay, id, 'incident.closed')).toHaveLength(0);

    const closed = await post(id, 'close', ana.token, { reason: 'fixed by hand on R1' });
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toMatchObject({ status: 'closed', by: 'Ana Ruiz', reason: 'fixed by hand on R1' });
    await pd.untilAccepted(2);
    expect(pd.accepted[1]).toMatchObject({ event_action: 'resolve', dedup_key: id });

    const again = await post(id, 'close', bo.token, { reason: 'me too' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: 'already_closed', message: expect.stringMatching(/closed by Ana Ruiz/) } });
    expect((await post(id, 'retry', ana.token)).json()).toMatchObject({ error: { code: 'already_closed' } });

    // With a model the run keeps going: closing it would hide a live run.
    const live = await relayWith('stub/stub');
    const running = await live.raise();
    const refused = await live.post(running, 'close', ana.token, { reason: 'not yet' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: { code: 'incident_active' } });
    expect((await live.post(running, 'retry', ana.token)).json()).toMatchObject({ error: { code: 'not_retryable' } });
  });

  it('retries a failed run as a new incident of the same fault, once', async () => {
    const { relay, post, raise } = await relayWith(null);
    const id = await raise({ neighbor_ip: '10.0.0.6' });
    await expect.poll(() => relay.incidents.get(id)?.state).toBe('failed');
    expect((await post(id, 'retry', vic.token)).statusCode).toBe(403);

    const answer = await post(id, 'retry', ana.token);
    expect(answer.statusCode).toBe(202);
    const body = answer.json<{ status: string; new_incident_id: string }>();
    expect(body).toMatchObject({ status: 'retried', incident_id: id, by: 'Ana Ruiz' });
    expect(body.new_incident_id).not.toBe(id);
    const retry = relay.incidents.get(body.new_incident_id);
    expect(retry).toMatchObject({ alert_def_id: 'AD000002', device_hostname: 'R1', alert_vars: { neighbor_ip: '10.0.0.6' } });
    expect(entries(relay, id, 'incident.retried')).toMatchObject([{ by: 'Ana Ruiz', incident_id: body.new_incident_id }]);
    expect(entries(relay, body.new_incident_id, 'incident.retry_of')).toMatchObject([{ of: id }]);

    const twice = await post(id, 'retry', bo.token);
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toMatchObject({ error: { code: 'already_retried' } });
  });
});
