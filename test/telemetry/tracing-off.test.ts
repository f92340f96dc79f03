import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelemetry, tracingActive } from '../../src/adapters/telemetry/sdk';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

/**
 * Without OTEL_* settings that ask for traces, nothing is exported: not even to the SDK's default
 * endpoint (localhost:4318, where this test's receiver listens when the port is free).
 */

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver(4318).catch(() => startOtlpReceiver());
});
afterAll(async () => {
  await receiver?.stop();
});

describe('tracing off', () => {
  it.each([
    ['nothing set but the service name', { OTEL_SERVICE_NAME: 'fault-relay' }],
    ['OTEL_SDK_DISABLED=true', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'receiver' }],
    ['OTEL_TRACES_EXPORTER=none', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'receiver' }],
  ])('%s: no SDK, no span, no traceparent stored, nothing sent', async (_name, settings) => {
    const env = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, v === 'receiver' ? receiver.url : v]));
    const telemetry = await startTelemetry(env);
    expect(telemetry.active).toBe(false);
    expect(tracingActive()).toBe(false);
    // The API's own no-op provider: no SDK was registered to record anything.
    expect((trace.getTracerProvider() as unknown as { getDelegate(): object }).getDelegate().constructor.name).toBe('NoopTracerProvider');

    const agent = createStubRuntime();
    const relay = await relayForTest({ agent });
    try {
      const res = await relay.app.inject({
        method: 'POST',
        url: '/fault-alert',
        headers: { 'content-type': 'application/json', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
        payload: JSON.stringify(ad000002()),
      });
      expect(res.statusCode).toBe(202);
      const incident = relay.incidents.get(res.json().incident_id as string)!;
      expect(incident.trace).toBeUndefined();
      expect(agent.prompts).toHaveLength(1);
      await telemetry.flush();
      expect(receiver.requests).toEqual([]);
    } finally {
      await relay.close();
    }
  });
});
