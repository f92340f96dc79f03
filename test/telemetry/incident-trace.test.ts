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
import { ad000002, relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { tempDir } from '../helpers/temp-dir';

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

/** The span's parents in the receiver, nearest first. */
function ancestors(span: ReceivedSpan): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  for (let parent = receiver.spans.find((s) => s.spanId === span.parentSpanId); parent; parent = receiver.spans.find((s) => s.spanId === parent!.parentSpanId)) chain.push(parent);
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
      expect((await relay.decide(id, 'APPROVED', { id: 'alice' }, 'test')).status).toBe('accepted');
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
});
