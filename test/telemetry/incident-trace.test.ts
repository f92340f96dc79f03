import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileBackends } from '../../src/core/incidents/file-backend';
import { createPersistentStore } from '../../src/core/incidents/persistent-store';
import type { Relay } from '../../src/relay/create-relay';
import { inIncidentSpan } from '../../src/adapters/telemetry/incident-trace';
import { startTelemetry, type Telemetry } from '../../src/adapters/telemetry/sdk';
import { connectMcp } from '../helpers/mcp-client';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { ad000002, relayForTest, silent, testConfig } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';
import { webexChannel } from '../../src/adapters/channels/webex/from-config';
import { createSlackChannel, type SlackChannel } from '../../src/adapters/channels/slack/slack-channel';
import { startSlackFake } from '../fakes/slack/slack-fake';
import { newRoomId, startWebexFake } from '../fakes/webex';

/**
 * Tracing on (the standard OTEL_* variables, OTLP/HTTP JSON to a receiver in the test): an
 * incident's spans form one trace under the alert sender's traceparent, also after the relay that
 * took the alert stopped and another opened its store.
 */

const SENDER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SENDER_SPAN = '00f067aa0ba902b7';
const WEBHOOK_SECRET = 'splunk-webhook-secret-7f3a9c';
const TOOLS_TOKEN = 'relay-tools-token-5d81e2';
const LINES = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const OTEL = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'fault-relay-test', OTEL_BSP_SCHEDULE_DELAY: '100' };

let receiver: OtlpReceiver;
let telemetry: Telemetry;
const saved = { ...process.env };

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  Object.assign(process.env, OTEL, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  telemetry = await startTelemetry(process.env);
});

afterAll(async () => {
  await telemetry?.shutdown();
  await receiver?.stop();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
});

const named = (name: string, incidentId: string) => receiver.spans.filter((s) => s.name === name && s.attributes['fault_relay.incident.id'] === incidentId);
async function spanOf(name: string, incidentId: string): Promise<ReceivedSpan> {
  await telemetry.flush();
  await receiver.until(() => named(name, incidentId).length > 0, `a ${name} span for ${incidentId}`);
  return named(name, incidentId)[0]!;
}

/**
 * The incident's root span: the one its stored trace names. Incident ids start again with each
 * test's fresh store, so a name and an id alone may find an earlier test's incident.
 */
async function rootOf(relay: Relay, incidentId: string): Promise<ReceivedSpan> {
  const spanId = relay.incidents.get(incidentId)!.trace!.traceparent.split('-')[2];
  await telemetry.flush();
  await receiver.until(() => receiver.spans.some((s) => s.spanId === spanId), `the incident span of ${incidentId}`);
  return receiver.spans.find((s) => s.spanId === spanId)!;
}

/** The span's parents in the receiver, nearest first. */
function ancestors(span: ReceivedSpan): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  for (let parent = receiver.spans.find((s) => s.spanId === span.parentSpanId); parent; parent = receiver.spans.find((s) => s.spanId === parent.parentSpanId)) chain.push(parent);
  return chain;
}

describe('incident traces', () => {
  it('continue the sender\'s traceparent from the alert through delivery, a tool call and the approval wait, across a relay restart', async () => {
    const dir = tempDir('fault-relay-trace-');
    const openStore = () => {
      const { open, archive } = createFileBackends(dir);
      return createPersistentStore({ backend: open, archive, timelineDir: join(dir, 'timelines'), retention: 1000, logger: silent });
    };
    // One runtime outlives both relays, as opencode does.
    const agent = createStubRuntime();
    const env = { WEBHOOK_SECRET, RELAY_TOOLS_TOKEN: TOOLS_TOKEN };
    let relay: Relay = await relayForTest({ agent, store: openStore(), env, extraChannels: () => ['test'] });
    const res = await relay.app.inject({
      method: 'POST',
      url: '/fault-alert?token=query-secret-91b2',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${WEBHOOK_SECRET}`, traceparent: `00-${SENDER_TRACE}-${SENDER_SPAN}-01` },
      payload: JSON.stringify(ad000002()),
    });
    expect(res.statusCode).toBe(202);
    const id = res.json().incident_id as string;
    const root = await spanOf('incident', id);
    const deliver = await spanOf('deliver', id);
    await relay.close();

    // Another relay process on the same store: what it does for the incident is still in its trace.
    relay = await relayForTest({ agent, store: openStore(), env, extraChannels: () => ['test'] });
    try {
      const url = await relay.listen({ port: 0, host: '127.0.0.1' });
      const mcp = await connectMcp(`${url}/mcp`, TOOLS_TOKEN);
      const asked = await mcp.call('request_approval', { incident_id: id, summary: 'neighbor admin down', device: 'R1', commands: LINES, rollback: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'] });
      await mcp.close();
      expect(asked.json).toMatchObject({ status: 'pending' });
      const requestId = relay.incidents.get(id)!.approval_request!.request_id;
      expect((await relay.decide({ incident_id: id, decision: 'APPROVED', who: { id: 'alice', authenticated_by: 'relay' }, channel: 'test' })).status).toBe('accepted');
      const tool = await spanOf('execute_tool request_approval', id);
      const wait = await spanOf('approval.wait', id);

      // The alert's request continues the sender's span; the incident hangs under that request.
      const chain = ancestors(root);
      const intake = chain.find((s) => s.name === 'request')!;
      expect(chain.at(-1)).toBe(intake);
      expect(intake).toMatchObject({ traceId: SENDER_TRACE, parentSpanId: SENDER_SPAN, service: 'fault-relay-test' });
      expect(intake.attributes).toMatchObject({ 'http.route': '/fault-alert', 'url.path': '/fault-alert?token=REDACTED' });
      for (const span of [root, deliver, tool, wait]) expect(span.traceId).toBe(SENDER_TRACE);
      for (const span of [deliver, tool, wait]) expect(span.parentSpanId).toBe(root.spanId);
      expect(root.attributes).toMatchObject({ 'fault_relay.incident.id': id, 'fault_relay.device': 'R1', 'fault_relay.alert_def_id': 'AD000002' });
      expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'request_approval', 'fault_relay.request.id': requestId });
      expect(wait.attributes).toMatchObject({ 'fault_relay.request.id': requestId, 'fault_relay.approval.decision': 'APPROVED', 'fault_relay.approval.channel': 'test' });

      // Identifiers only: no configuration line, no credential, no query value anywhere in what was exported.
      const exported = receiver.bodies.join('\n');
      for (const secret of [WEBHOOK_SECRET, TOOLS_TOKEN, 'query-secret-91b2', LINES[1]!, 'neighbor admin down']) expect(exported).not.toContain(secret);
    } finally {
      await relay.close();
    }
  });

  it('carry the incident\'s trace on the relay\'s outbound calls (W3C traceparent)', async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.traceparent as string | undefined);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/messages?access_token=outbound-secret-3c`;
    try {
      const incident = { incident_id: 'INC-TRACE-1', device_hostname: 'R1', trace: { traceparent: `00-${SENDER_TRACE}-${SENDER_SPAN}-01` } };
      await inIncidentSpan(incident, 'notify', {}, async () => void (await (await request(url)).body.text()));
      // Outside any incident (the runtime's event stream, a poll): no span, no header.
      await (await request(url)).body.text();
      expect(seen[0]).toMatch(new RegExp(`^00-${SENDER_TRACE}-[0-9a-f]{16}-01$`));
      expect(seen[1]).toBeUndefined();
      await telemetry.flush();
      await receiver.until(() => receiver.spans.some((s) => s.kind === 3 && s.traceId === SENDER_TRACE && String(s.attributes['url.full']).includes('/messages')), 'the outbound call\'s span');
      const call = receiver.spans.find((s) => s.kind === 3 && String(s.attributes['url.full']).includes('/messages'))!;
      expect(call.attributes['url.full']).toMatch(/\/messages\?access_token=REDACTED$/);
      expect(receiver.bodies.join('\n')).not.toContain('outbound-secret-3c');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('show every repeat of the alert: an alert.repeat span in the incident\'s trace, linked both ways to the repeat\'s own request', async () => {
    const relay = await relayForTest({ agent: createStubRuntime() });
    try {
      const post = (trace: string, span: string) => relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json', traceparent: `00-${trace}-${span}-01` }, payload: JSON.stringify(ad000002()) });
      const id = (await post(SENDER_TRACE, SENDER_SPAN)).json().incident_id as string;
      const root = await rootOf(relay, id);
      const repeatsOf = () => receiver.spans.filter((s) => s.name === 'alert.repeat' && s.parentSpanId === root.spanId);
      // Two repeats, each from a sender's trace of its own.
      const repeats = [['5a1ce5f1a9d84c0e9b2b1f0e3c4d5e6f', '1111111111111111'], ['6b2df6a2bae95d1fac3c2a1f4d5e6f70', '2222222222222222']] as const;
      for (const [trace, span] of repeats) expect((await post(trace, span)).json()).toMatchObject({ status: 'duplicate', incident_id: id });
      await telemetry.flush();
      // Both repeats, and each repeat's request with the span that links it to the incident.
      const linked = (trace: string) => receiver.spans.some((s) => s.traceId === trace && s.links.some((l) => l.traceId === SENDER_TRACE && l.spanId === root.spanId));
      await receiver.until(() => repeatsOf().length === 2 && repeats.every(([trace, span]) => linked(trace) && receiver.spans.some((s) => s.traceId === trace && s.parentSpanId === span)), 'both repeats');
      for (const [trace, span] of repeats) {
        const request = receiver.spans.find((s) => s.traceId === trace && s.parentSpanId === span)!;
        expect(request).toMatchObject({ name: 'request', attributes: { 'http.route': '/fault-alert' } });
        // The repeat's request (in the sender's trace; its span or the handler's under it) leads to the incident …
        const linking = receiver.spans.find((s) => s.traceId === trace && s.links.some((l) => l.traceId === SENDER_TRACE && l.spanId === root.spanId))!;
        expect([linking, ...ancestors(linking)]).toContain(request);
        expect(linking.attributes['fault_relay.incident.id']).toBe(id);
        // … and the incident's trace shows the repeat, which leads back to that request.
        const repeat = repeatsOf().find((s) => s.links.some((l) => l.spanId === linking.spanId))!;
        expect(repeat).toMatchObject({ traceId: SENDER_TRACE, parentSpanId: root.spanId, links: [{ traceId: trace, spanId: linking.spanId }] });
      }
      expect(repeatsOf().map((s) => s.attributes['fault_relay.incident.occurrences']).sort()).toEqual([2, 3]);
    } finally {
      await relay.close();
    }
  });

  it('give a decision from the Webex card (Mercury) and from Slack (Socket Mode) its own approval.decision span in the incident\'s trace', async () => {
    const token = 'webex-bot-token-trace-1';
    const roomId = newRoomId();
    const webexFake = await startWebexFake({ token, roomId });
    const ids = { appToken: 'xapp-1-trace', botToken: 'xoxb-trace', appId: 'A0RELAY', teamId: 'T0OURS', channelId: 'C0OPS' };
    const slackFake = await startSlackFake({ ...ids, users: { U0ALICE: 'alice@example.net' } });
    const slack: SlackChannel = createSlackChannel({ ...ids, apiUrl: slackFake.apiUrl, approver: (p) => p.email === 'alice@example.net', logger: silent });
    const env = { MSG_BOT_TOKEN: token, MSG_ROOM_ID: roomId, MSG_U2C_URL: webexFake.u2cUrl, MSG_API_URL: webexFake.apiUrl };
    const webex = webexChannel.fromConfig(testConfig(env), { logger: silent })!;
    const relay = await relayForTest({ agent: createStubRuntime(), channels: [webex, slack], env });
    try {
      await webex.connection!.connect();
      await slack.start();
      const ask = async (device: string) => {
        const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json', traceparent: `00-${SENDER_TRACE}-${SENDER_SPAN}-01` }, payload: JSON.stringify(ad000002({ system: device })) });
        const id = res.json().incident_id as string;
        expect(await relay.approvals.request({ incident_id: id, summary: 's', device, commands: LINES })).toMatchObject({ status: 'pending' });
        return { id, request: relay.incidents.get(id)!.approval_request! };
      };

      // Webex: the card posted for the request, clicked by a person; the submission arrives over the websocket.
      const byWebex = await ask('R1');
      const card = webexFake.postedMessages(roomId).find((m) => m.id === byWebex.request.channel_messages?.webex)!;
      webexFake.clickCardButton({ messageId: card.id, title: 'Approve', personEmail: 'alice@example.net' });
      // Slack: the button of the message posted for the request, clicked over Socket Mode.
      const bySlack = await ask('R2');
      const message = slackFake.messages.find((m) => m.ts === bySlack.request.channel_messages?.slack)!;
      const buttons = (message.blocks!.find((b) => b.type === 'actions') as { elements: { value: string }[] }).elements;
      slackFake.click({ user: 'U0ALICE', value: buttons[1]!.value });

      for (const [{ id, request }, channel, decision] of [[byWebex, 'webex', 'APPROVED'], [bySlack, 'slack', 'DENIED']] as const) {
        const root = await rootOf(relay, id);
        const ofRequest = () => named('approval.decision', id).find((s) => s.attributes['fault_relay.request.id'] === request.request_id);
        await telemetry.flush();
        await receiver.until(() => ofRequest() !== undefined, `the ${channel} decision's span`);
        const span = ofRequest()!;
        expect(span).toMatchObject({ traceId: root.traceId, parentSpanId: root.spanId });
        expect(span.attributes).toMatchObject({ 'fault_relay.incident.id': id, 'fault_relay.request.id': request.request_id, 'fault_relay.approval.channel': channel, 'fault_relay.approval.decision': decision, 'fault_relay.approval.result': 'accepted' });
        expect(relay.incidents.get(id)?.approval).toMatchObject({ decision, channel });
      }
      const exported = receiver.bodies.join('\n');
      for (const secret of [LINES[1]!, 'alice@example.net', token, ids.botToken, ids.appToken]) expect(exported).not.toContain(secret);
    } finally {
      await slack.stop();
      await relay.close();
      await webex.stop();
      await slackFake.stop();
      await webexFake.stop();
    }
  });
});
