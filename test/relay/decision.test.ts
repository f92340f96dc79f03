import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { newToken } from '../../src/core/operators/operators';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';

const ana = newToken();
const vic = newToken();
const SECRET = 'splunk-webhook-secret-41';
let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

function operatorsFile(): string {
  const path = join(tempDir('fault-relay-ops-'), 'operators.yaml');
  writeFileSync(
    path,
    stringify({
      operators: [
        { name: 'Ana Ruiz', email: 'ana@example.net', role: 'approver', token_sha256: ana.sha256 },
        { name: 'Victor Li', email: 'vic@example.net', role: 'viewer', token_sha256: vic.sha256 },
      ],
    }),
  );
  return path;
}

async function awaiting(env: Record<string, string> = { OPERATORS_FILE: operatorsFile(), WEBHOOK_SECRET: SECRET }) {
  relay = await relayForTest({ agent: createStubRuntime(), env, extraChannels: () => ['desktop'] });
  const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { authorization: `Bearer ${SECRET}` }, payload: ad000002() });
  const id = res.json().incident_id as string;
  await relay.approvals.request({ incident_id: id, summary: 'Remove the shutdown', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'] });
  return id;
}

/** The request the person is looking at: what every decision names. */
const pendingRequest = (id: string) => relay!.incidents.get(id)!.approval_request!.request_id;
const decide = (id: string, token: string | undefined, body: Record<string, unknown>) =>
  relay!.app.inject({
    method: 'POST',
    url: `/incidents/${id}/decision`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    payload: { request_id: relay!.incidents.get(id)?.approval_request?.request_id ?? 'REQ-NONE-0000', ...body },
  });

describe('POST /incidents/:id/decision with a personal token', () => {
  it('lets an approver decide, recorded under their name from OPERATORS_FILE with the channel; the second decision gets 409 naming who decided', async () => {
    const id = await awaiting();
    const res = await decide(id, ana.token, { decision: 'APPROVED', comment: 'change CHG-1234' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'accepted', incident_id: id, request_id: pendingRequest(id), decision: 'APPROVED', by: 'Ana Ruiz', channel: 'api' });
    expect(relay!.incidents.get(id)?.approval).toMatchObject({ decision: 'APPROVED', by: 'Ana Ruiz', channel: 'api', reason: 'change CHG-1234' });

    const again = await decide(id, ana.token, { decision: 'DENIED' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'already_decided', message: expect.stringMatching(/^Already APPROVED by Ana Ruiz via api at /) });
  });

  it('a decision names the request it was shown: an old request, or any other, is refused with 409 naming it, and changes nothing', async () => {
    const id = await awaiting();
    const first = pendingRequest(id);
    expect(first).toMatch(/^REQ-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    // The first request is denied by someone; the agent asks again with other lines: a new request.
    expect((await decide(id, ana.token, { decision: 'DENIED' })).statusCode).toBe(200);
    // As when the agent has read the decision (its forward may still be on the way).
    if (relay!.incidents.can(id, 'resume')) relay!.incidents.transition(id, 'resume');
    await relay!.approvals.request({ incident_id: id, summary: 'Try again', device: 'R1', commands: ['router bgp 65001', 'no neighbor 10.0.0.9 shutdown'] });
    const second = pendingRequest(id);
    expect(second).not.toBe(first);

    // A late click on the first request (a stale window, an old notification) approves nothing.
    const late = await decide(id, ana.token, { request_id: first, decision: 'APPROVED' });
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ error: { code: 'stale_request', message: expect.stringContaining(`request ${first}`) }, request_id: first, pending_request_id: second });
    const invented = await decide(id, ana.token, { request_id: 'REQ-AAAA-AAAA', decision: 'APPROVED' });
    expect(invented.statusCode).toBe(409);
    expect(relay!.incidents.get(id)).toMatchObject({ state: 'awaiting_approval', approval: null, approval_request: { request_id: second, status: 'pending' } });

    const missing = await relay!.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${ana.token}` }, payload: { decision: 'APPROVED' } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details).toContainEqual(expect.objectContaining({ path: 'request_id' }));
    expect((await decide(id, ana.token, { request_id: second, decision: 'APPROVED' })).statusCode).toBe(200);
  });

  it('answers 403 to a viewer and 401 to an unknown or missing token, and changes nothing', async () => {
    const id = await awaiting();
    const viewer = await decide(id, vic.token, { decision: 'APPROVED' });
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json().error).toMatchObject({ code: 'not_an_approver', message: 'vic@example.net is a viewer: only approvers decide.' });
    for (const token of [newToken().token, undefined, SECRET]) {
      const res = await decide(id, token, { decision: 'APPROVED' });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    }
    expect(relay!.incidents.get(id)).toMatchObject({ state: 'awaiting_approval', approval: null });
  });

  it('refuses a decision that is not APPROVED or DENIED, and an unknown incident', async () => {
    const id = await awaiting();
    const bad = await decide(id, ana.token, { decision: 'yes please' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toContainEqual({ path: 'decision', message: 'APPROVED or DENIED' });
    expect((await decide('INC-nope', ana.token, { decision: 'DENIED' })).statusCode).toBe(404);
    expect(relay!.incidents.get(id)?.approval).toBeNull();
  });

  it('opens /sessions and /events read-only with a personal token, never the writes', async () => {
    await awaiting();
    expect((await relay!.app.inject({ url: '/sessions', headers: { authorization: `Bearer ${vic.token}` } })).statusCode).toBe(200);
    expect((await relay!.app.inject({ url: '/sessions', headers: { authorization: `Bearer ${newToken().token}` } })).statusCode).toBe(401);
    const headed = await relay!.app.inject({ method: 'POST', url: '/headed', headers: { authorization: `Bearer ${vic.token}` }, payload: { device: 'R1', alert_def_id: 'AD000002', vars: {} } });
    expect(headed.statusCode).toBe(403);
    // The UI login takes a personal token too, and trades it for the session cookie.
    const login = await relay!.app.inject({ url: `/ui?token=${encodeURIComponent(vic.token)}` });
    expect(login.headers['set-cookie']).toMatch(/^fault_relay_ui=v2\./);
  });

  it('with approvers listed, the API and their trays are live channels: pending, never unattended, and who is following is said', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { OPERATORS_FILE: operatorsFile(), WEBHOOK_SECRET: SECRET } });
    const url = await relay.listen({ port: 0, host: '127.0.0.1' });
    const health = (await relay.app.inject({ url: '/health' })).json();
    expect(health.approval_channels).toEqual(['api']);
    expect(health.warnings.join(' ')).not.toMatch(/no approval channel/i);
    const alert = async (neighbor: string) => {
      const res = await relay!.app.inject({ method: 'POST', url: '/fault-alert', headers: { authorization: `Bearer ${SECRET}` }, payload: ad000002({ neighbor_ip: neighbor }) });
      const id = res.json().incident_id as string;
      return { id, answer: await relay!.approvals.request({ incident_id: id, summary: 's', device: 'R1', commands: ['router bgp 65001', `no neighbor ${neighbor} shutdown`] }) };
    };
    const nobody = await alert('10.0.0.2');
    expect(nobody.answer).toMatchObject({ status: 'pending', channels: ['api'], approvers_online: [], warning: expect.stringMatching(/No approver is following the relay right now/) });

    // Ana's tray follows the relay (a viewer's does not count as an approver).
    const controller = new AbortController();
    const stream = await fetch(`${url}/events`, { headers: { authorization: `Bearer ${ana.token}` }, signal: controller.signal });
    const viewerStream = await fetch(`${url}/events`, { headers: { authorization: `Bearer ${vic.token}` }, signal: controller.signal });
    expect([stream.status, viewerStream.status]).toEqual([200, 200]);
    await stream.body!.getReader().read(); // the snapshot: the stream is open on the relay
    const someone = await alert('10.0.0.6');
    expect(someone.answer).toMatchObject({ status: 'pending', approvers_online: ['ana@example.net'] });
    expect(someone.answer).not.toHaveProperty('warning');
    const deep = (await relay.app.inject({ url: '/health/deep', headers: { authorization: `Bearer ${SECRET}` } })).json();
    expect(deep).toMatchObject({ approval_channels: ['api'], approvers_online: ['ana@example.net'] });
    controller.abort();
  });

  it('says decisions over the API need OPERATORS_FILE when none is configured', async () => {
    const id = await awaiting({ WEBHOOK_SECRET: SECRET });
    const res = await decide(id, ana.token, { decision: 'APPROVED' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('operators_not_configured');
  });
});
