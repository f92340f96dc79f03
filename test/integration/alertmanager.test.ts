import { describe, expect, it } from 'vitest';
import type { Incident } from '../../src/core/incidents/model';
import type { Relay } from '../../src/relay/create-relay';
import { entries } from '../../src/core/events/timeline-entries';
import { noAlertmanager, startAlertmanager } from '../helpers/alertmanager-process';
import { untilIncident } from '../helpers/incident-waits';
import { relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

if (noAlertmanager) console.warn(`alertmanager: skipped, ${noAlertmanager}`);

const SECRET = 'alertmanager-integration-secret';

/** `promise`, or a failure naming `what` once `ms` have passed: a hang fails the test instead of stalling it. */
function within<T>(promise: Promise<T>, what: string, ms = 45_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting until ${what}`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const firstIncident = (relay: Relay) =>
  new Promise<Incident>((resolve) => {
    const off = relay.bus.subscribe('incident.created', ({ incident }) => {
      off();
      resolve(relay.incidents.get(incident.incident_id)!);
    });
  });

describe.skipIf(noAlertmanager)('a real Alertmanager notifying the relay', () => {
  it('opens an incident, folds the repeat into it, and records the resolution', async () => {
    const agent = createStubRuntime();
    const relay = await relayForTest({ agent, env: { WEBHOOK_SECRET: SECRET } });
    const relayUrl = await relay.listen({ port: 0, host: '127.0.0.1' });
    const am = await startAlertmanager({ webhookUrl: `${relayUrl}/alerts/alertmanager`, bearer: SECRET });
    try {
      const labels = { alertname: 'BGPNeighborAdminDown', instance: 'R1:9342', peer: '10.0.0.2', vrf: 'CUST-A', severity: 'critical' };
      const startsAt = new Date().toISOString();
      const created = firstIncident(relay);
      // As Prometheus does: the alert is sent to Alertmanager's API, which notifies the relay's receiver.
      await am.postAlerts([{ labels, annotations: { summary: 'BGP neighbor 10.0.0.2 (CUST-A) on R1 is administratively down' }, startsAt }]);

      const incident = await within(created, 'the relay opened an incident');
      expect(incident).toMatchObject({ alert_def_id: 'AD000002', device_hostname: 'R1', severity: 'critical', alert_vars: { neighbor_ip: '10.0.0.2', vrf_name: 'CUST-A' } });

      // Alertmanager notifies again while the alert fires (repeat_interval): the same incident counts it.
      await within(untilIncident(relay, incident.incident_id, (i) => i.occurrences >= 2), 'the repeat was folded into the incident');
      expect(relay.incidents.list()).toHaveLength(1);

      // Prometheus resolves an alert by sending it with an end time that has passed.
      await am.postAlerts([{ labels, startsAt, endsAt: new Date().toISOString() }]);
      await within(
        untilIncident(relay, incident.incident_id, (_i, timeline) => timeline.some((e) => e.type === entries.alertResolvedTold.name)),
        'the resolution was recorded and the run told',
      );
      const line = relay.incidents.timeline(incident.incident_id).find((e) => e.type === entries.alertResolved.name);
      expect(line?.message).toMatch(/^Alert resolved at source: alertmanager reports the fault cleared/);
      // One run, started by the first notification, and told at the end.
      expect(agent.sessions.map((s) => s.title)).toEqual([`${incident.incident_id} AD000002 R1`]);
      expect(agent.prompts.at(-1)?.text).toMatch(/^ALERT RESOLVED AT SOURCE/);
      expect(relay.incidents.list()).toHaveLength(1);
    } finally {
      await am.stop();
      await relay.close();
    }
  });
});
