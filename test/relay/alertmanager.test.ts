import { afterEach, describe, expect, it } from 'vitest';
import { parsePromptText } from '../../src/core/incidents/agent-prompt';
import { batchAnswerSchema } from '../../src/core/incidents/alert-source';
import type { Relay } from '../../src/relay/create-relay';
import { entries } from '../../src/core/events/timeline-entries';
import { amAlert, amWebhook, bgpLabels } from '../helpers/alertmanager';
import { captureLogger } from '../helpers/capture-logger';
import { untilIncident } from '../helpers/incident-waits';
import { createStubRuntime } from '../helpers/stub-runtime';
import { ad000002, relayForTest } from '../helpers/relay';

const SECRET = 'hook-secret-for-tests';
const auth = { authorization: `Bearer ${SECRET}` };

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const post = (r: Relay, body: unknown, headers: Record<string, string> = auth, url = '/alerts/alertmanager') =>
  r.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: typeof body === 'string' ? body : JSON.stringify(body) });

/** Posts a notification and returns its 202 answer, held to the answer's schema. */
async function notify(r: Relay, alerts: ReturnType<typeof amAlert>[]) {
  const res = await post(r, amWebhook(alerts));
  expect(res.statusCode, res.body).toBe(202);
  return batchAnswerSchema.parse(res.json());
}

describe('POST /alerts/alertmanager', () => {
  it('needs the same bearer as /fault-alert, and answers in the same error shape', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET, MAX_BODY_BYTES: '2k' } });
    const none = await post(relay, amWebhook([amAlert()]), {});
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(none.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    expect((await post(relay, amWebhook([amAlert()]), { authorization: 'Bearer wrong' })).statusCode).toBe(401);

    const text = await post(relay, 'hello', { ...auth, 'content-type': 'text/plain' });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('unsupported_media_type');

    const big = await post(relay, amWebhook(Array.from({ length: 20 }, (_, i) => amAlert({ fingerprint: `f${i}` }))));
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ error: { code: 'payload_too_large', message: expect.any(String) } });

    expect((await post(relay, '{"version": ')).json().error.code).toBe('invalid_json');
    const invalid = await post(relay, { ...amWebhook([{ ...amAlert(), status: 'pending' } as never]), version: '3' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error.code).toBe('invalid_alert');
    expect(invalid.json().error.details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(['version', 'alerts.0.status']));
    expect(relay.incidents.list()).toEqual([]);
  });

  it('opens an incident for a firing alert, folds the next notification into it, and reports alerts it cannot map', async () => {
    const agent = createStubRuntime();
    const { logger, text } = captureLogger();
    relay = await relayForTest({ agent, env: { WEBHOOK_SECRET: SECRET }, logger });
    const first = await notify(relay, [amAlert({ fingerprint: 'bgp1' }), amAlert({ fingerprint: 'cpu1', labels: { alertname: 'HighCPU', instance: 'R1:9100' } })]);
    expect(first.accepted).toEqual([{ ref: 'bgp1', status: 'accepted', incident_id: expect.stringMatching(/^INC-/), alert_def_id: 'AD000002', session_id: expect.stringMatching(/^ses_/) }]);
    expect(first.unmatched).toEqual([{ ref: 'cpu1', status: 'firing', name: 'HighCPU', reason: expect.stringContaining('no alert definition matches') }]);
    expect(text()).toMatch(/"ref":"cpu1".*alert not taken: no alert definition matches/);

    const id = first.accepted[0]!.incident_id;
    const incident = relay.incidents.get(id)!;
    expect(incident).toMatchObject({ device_hostname: 'R1', severity: 'critical', field_sources: { device_hostname: 'label', neighbor_ip: 'label', vrf_name: 'label' } });
    const prompt = parsePromptText(agent.prompts[0]!.text);
    expect(agent.prompts[0]!.agent).toBe('network-troubleshooter');
    expect(prompt).toMatchObject({ incident_id: id, device_hostname: 'R1', raw_message: null, alert_vars: { neighbor_ip: '10.0.0.2', vrf_name: 'default', neighbor_as: '65002' } });

    const again = await notify(relay, [amAlert({ fingerprint: 'bgp1' })]);
    expect(again.accepted).toEqual([{ ref: 'bgp1', status: 'duplicate', incident_id: id, alert_def_id: 'AD000002', session_id: incident.session_id, occurrences: 2 }]);
    expect(relay.incidents.timeline(id).map((e) => e.type)).toContain('alert.repeated');
    expect(agent.sessions).toHaveLength(1);
  });

  it('folds an Alertmanager alert into the open incident a Splunk alert of the same fault opened', async () => {
    relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET } });
    const splunk = await post(relay, ad000002({ system: 'R1', neighbor_ip: '10.0.0.2' }), auth, '/fault-alert');
    expect(splunk.statusCode).toBe(202);
    const answer = await notify(relay, [amAlert({ labels: bgpLabels({ instance: 'r1:9342' }) })]);
    expect(answer.accepted[0]).toMatchObject({ status: 'duplicate', incident_id: splunk.json().incident_id, occurrences: 2 });
  });

  it('records a resolved alert on the open incident once, and tells a run that has sent no change', async () => {
    const agent = createStubRuntime();
    relay = await relayForTest({ agent, env: { WEBHOOK_SECRET: SECRET } });
    const id = (await notify(relay, [amAlert()])).accepted[0]!.incident_id;
    const resolved = amAlert({ status: 'resolved', endsAt: '2026-11-21T10:07:00Z' });
    const answer = await notify(relay, [resolved]);
    expect(answer).toEqual({ accepted: [], resolved: [{ ref: 'c0ffee0000000001', alert_def_id: 'AD000002', incident_id: id }], unmatched: [] });

    const told = await untilIncident(relay, id, (_i, timeline) => timeline.some((e) => e.type === entries.alertResolvedTold.name));
    expect(told.state).not.toBe('resolved');
    const lines = relay.incidents.timeline(id);
    expect(lines.find((e) => e.type === entries.alertResolved.name)).toMatchObject({ message: expect.stringMatching(/^Alert resolved at source: alertmanager/), resolved_at: '2026-11-21T10:07:00Z' });
    const notice = agent.prompts.at(-1)!;
    expect(notice).toMatchObject({ sessionId: told.session_id, agent: 'network-troubleshooter' });
    expect(notice.text).toMatch(/^ALERT RESOLVED AT SOURCE: /);
    expect(notice.noReply).toBeUndefined();

    // Alertmanager sends the resolved alert again with later notifications of its group.
    await notify(relay, [resolved]);
    expect(relay.incidents.timeline(id).filter((e) => e.type === entries.alertResolved.name)).toHaveLength(1);
    expect(agent.prompts.filter((p) => p.text.startsWith('ALERT RESOLVED'))).toHaveLength(1);
  });

  it('does not tell a run that has already sent a change, and answers a resolution with no open incident', async () => {
    const agent = createStubRuntime();
    relay = await relayForTest({ agent, env: { WEBHOOK_SECRET: SECRET } });
    const id = (await notify(relay, [amAlert()])).accepted[0]!.incident_id;
    relay.incidents.update(id, () => ({ application: { status: 'applied', device: 'R1', at: new Date().toISOString(), error: null } }));
    await notify(relay, [amAlert({ status: 'resolved' })]);
    const line = relay.incidents.timeline(id).find((e) => e.type === entries.alertResolvedNotTold.name);
    expect(line?.message).toMatch(/a change was already sent to the device \(applied\)/);
    expect(agent.prompts.filter((p) => p.text.startsWith('ALERT RESOLVED'))).toEqual([]);

    const elsewhere = await notify(relay, [amAlert({ status: 'resolved', fingerprint: 'other', labels: bgpLabels({ peer: '10.9.9.9' }) })]);
    expect(elsewhere.resolved).toEqual([{ ref: 'other', alert_def_id: 'AD000002', incident_id: null }]);
  });
});
