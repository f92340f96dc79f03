import { describe, expect, it } from 'vitest';
import { noPrometheus, startPrometheus } from '../helpers/prometheus-process';
import { waitUntil } from '../helpers/opencode';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

if (noPrometheus) console.warn(`prometheus: skipped, ${noPrometheus}`);

const SECRET = 'prometheus-integration-secret';

describe.skipIf(noPrometheus)('a real Prometheus scraping the relay', () => {
  it('scrapes /metrics with the bearer and answers the alert counter through its query API', async () => {
    const relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET } });
    const relayUrl = await relay.listen({ port: 0, host: '127.0.0.1' });
    const prometheus = await startPrometheus({ target: new URL(relayUrl).host, bearer: SECRET });
    try {
      const res = await fetch(`${relayUrl}/fault-alert`, { method: 'POST', headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' }, body: JSON.stringify(ad000002()) });
      expect(res.status).toBe(202);

      // Polled, not slept: Prometheus scrapes every second and the value shows once a scrape saw it.
      let value: number | undefined;
      await waitUntil(
        async () => (value = await prometheus.query('sum(fault_relay_alerts_received_total{source="splunk",answer="accepted"})')) === 1,
        'prometheus reports the accepted alert',
        { timeoutMs: 30_000, everyMs: 250 },
      ).catch(async (error: Error) => {
        throw new Error(`${error.message} (last value ${value}; target ${JSON.stringify(await prometheus.target())})`);
      });
      expect(await prometheus.query('fault_relay_alerts_received_total')).toBe(1);
      // The scrape went through the bearer: the target is up, and the relay's gauges arrived too.
      expect(await prometheus.target()).toMatchObject({ health: 'up', lastError: '' });
      expect(await prometheus.query('fault_relay_store_up')).toBe(1);
    } finally {
      await prometheus.stop();
      await relay.close();
    }
  });
});
