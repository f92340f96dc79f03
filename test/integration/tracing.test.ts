import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSplunkAlert } from '../../src/adapters/alert-sources/sample';
import { agentLogPath } from '../../harness/demo/brain';
import { startDemoStack, type DemoStack } from '../../harness/demo/demo-stack';
import { isTerminal } from '../../src/core/incidents/model';
import { startTelemetry, type Telemetry } from '../../src/adapters/telemetry/sdk';
import { untilIncident } from '../helpers/incident-waits';
import { repoRoot } from '../helpers/opencode';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { silent } from '../helpers/relay';
import { decideAs } from '../helpers/decide-as';

/**
 * One alert's whole path on the real parts (opencode with the repository's agents and the
 * scripted model, the relay's guard, the device lab) as one trace at an OTLP/HTTP receiver:
 * under the alert sender's traceparent, from intake through delivery, the agents' tool calls,
 * the approval wait, the device calls and the change's confirmation.
 */

const SERVICE = 'fault-relay-e2e';
const SENDER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const SENDER_SPAN = 'b7ad6b7169203331';
const REPAIR_LINE = 'no neighbor 10.0.0.2 shutdown';

let receiver: OtlpReceiver;
let telemetry: Telemetry;
let stack: DemoStack;
const dataDir = mkdtempSync(path.join(tmpdir(), 'e2e-trace-'));
const agentLogs: string[] = [];
const saved = { ...process.env };

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: SERVICE, OTEL_BSP_SCHEDULE_DELAY: '200' });
  telemetry = await startTelemetry(process.env);
  stack = await startDemoStack({ projectDir: repoRoot, dataDir, logDir: path.join(dataDir, 'logs'), logger: silent, convergeDelayMs: 0, maxSleepS: 0, approvalChannels: ['test'] });
  await stack.toolsConnected();
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await telemetry?.shutdown();
  await receiver?.stop();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  for (const file of agentLogs) rmSync(file, { force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const relay = () => stack.relay.relay;
const ours = () => receiver.spans.filter((s) => s.service === SERVICE);
const byId = (id: string) => ours().find((s) => s.spanId === id);
function ancestors(span: ReceivedSpan): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  for (let p = byId(span.parentSpanId); p; p = byId(p.parentSpanId)) chain.push(p);
  return chain;
}

describe('tracing an incident on the real runtime', () => {
  it('alert → delivery → tool calls → approval wait → device calls → confirmation: one trace under the sender\'s span, identifiers only', async () => {
    const lab = stack.lab!.lab;
    lab.reset();
    lab.inject({ fault: 'bgp_neighbor_admin_down', device: 'R1', neighbor: '10.0.0.2' });
    const res = await request(`${stack.relay.url}/fault-alert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${SENDER_TRACE}-${SENDER_SPAN}-01` },
      body: JSON.stringify(buildSplunkAlert({ device: 'R1', neighbor: '10.0.0.2', kbQueryMode: 'quick' })),
    });
    expect(res.statusCode).toBe(202);
    const id = ((await res.body.json()) as { incident_id: string }).incident_id;
    agentLogs.push(agentLogPath(repoRoot, relay().incidents.get(id)!));

    await untilIncident(relay(), id, (i) => i.state === 'awaiting_approval');
    const requestId = relay().incidents.get(id)!.approval_request!.request_id;
    expect((await decideAs(relay(), id, 'APPROVED', 'alice', { channel: 'test' })).status).toBe('accepted');
    const done = await untilIncident(relay(), id, (i) => isTerminal(i.state) && i.change?.state !== 'pending');
    expect(done.state).toBe('resolved');
    expect(done.change?.state).toBe('confirmed');

    const of = (name: string) => ours().filter((s) => s.name === name && s.attributes['fault_relay.incident.id'] === id);
    await telemetry.flush();
    await receiver.until(() => of('change.confirm').length > 0 && of('execute_tool report_outcome').length > 0, 'the confirm and the outcome');

    const [root] = of('incident');
    expect(root).toBeDefined();
    // The sender's span → the relay's request for POST /fault-alert → … → the incident.
    const intake = ancestors(root!).at(-1)!;
    expect(intake).toMatchObject({ name: 'request', parentSpanId: SENDER_SPAN, traceId: SENDER_TRACE });
    expect(intake.attributes['http.route']).toBe('/fault-alert');

    // Every span the relay made for the incident is in that one trace.
    const incidentSpans = ours().filter((s) => s.attributes['fault_relay.incident.id'] === id);
    expect(new Set(incidentSpans.map((s) => s.traceId))).toEqual(new Set([SENDER_TRACE]));
    for (const name of ['deliver', 'execute_tool notify', 'execute_tool request_approval', 'execute_tool exec_cli', 'execute_tool config_cli', 'approval.wait', 'execute_tool report_outcome']) {
      expect(of(name).length, name).toBeGreaterThan(0);
      for (const span of of(name)) expect(span.parentSpanId, name).toBe(root!.spanId);
    }
    // Nested where they start: the post-check under the apply that started it, the confirm under the post-check.
    expect(of('change.post_check')[0]!.parentSpanId).toBe(of('execute_tool config_cli')[0]!.spanId);
    expect(of('change.confirm')[0]!.parentSpanId).toBe(of('change.post_check')[0]!.spanId);
    expect(of('approval.wait')[0]!.attributes).toMatchObject({ 'fault_relay.request.id': requestId, 'fault_relay.device': 'R1', 'fault_relay.approval.decision': 'APPROVED' });
    expect(of('execute_tool config_cli')[0]!.attributes).toMatchObject({ 'fault_relay.request.id': requestId, 'gen_ai.operation.name': 'execute_tool' });

    // The relay's outbound calls in the trace: to the runtime (delivery) and to the device tool server (exec_cli, the post-check).
    const runtimePort = Number(new URL(stack.relay.embedded!.endpoint.url).port);
    const labPort = Number(new URL(stack.lab!.mcpUrl).port);
    const clientCalls = ours().filter((s) => s.kind === 3 && s.traceId === SENDER_TRACE);
    const under = (span: ReceivedSpan, name: string) => ancestors(span).some((a) => a.name === name);
    expect(clientCalls.some((c) => c.attributes['server.port'] === runtimePort && under(c, 'deliver'))).toBe(true);
    expect(clientCalls.some((c) => c.attributes['server.port'] === labPort && under(c, 'execute_tool exec_cli'))).toBe(true);
    expect(clientCalls.some((c) => c.attributes['server.port'] === labPort && under(c, 'change.post_check'))).toBe(true);

    // Only the relay exported: the embedded runtime is not given the OTLP endpoint (its own spans would carry the lines).
    expect(new Set(receiver.spans.map((s) => s.service))).toEqual(new Set([SERVICE]));
    // Never the lines, never a credential, in anything the relay exported.
    const exported = JSON.stringify(ours());
    for (const secret of [REPAIR_LINE, relay().toolsToken, stack.relay.embedded!.endpoint.password]) expect(exported).not.toContain(secret);
  }, 240_000);
});
