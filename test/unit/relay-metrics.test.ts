import { describe, expect, it } from 'vitest';
import { createBus } from '../../src/core/events/bus';
import type { RelayEvents } from '../../src/core/incidents/events';
import type { Incident } from '../../src/core/incidents/model';
import { createRelayMetrics, refusalReason } from '../../src/relay/metrics';

/** Only what the metrics read of an incident: its state and its approval. */
const incident = (over: Partial<Incident>) => ({ incident_id: 'INC-1', state: 'approved', approval: null, approval_request: null, ...over }) as unknown as Incident;

describe('relay metrics from the event bus', () => {
  it('times request → decision and decision → applied, and reads leadership and the store when scraped', async () => {
    const bus = createBus<RelayEvents>();
    const approval = { decision: 'APPROVED', effective: 'APPROVED', channel: 'api', at: '2026-01-01T00:01:00.000Z' } as Incident['approval'];
    const current = incident({ approval, approval_request: { requested_at: '2026-01-01T00:00:00.000Z' } as Incident['approval_request'] });
    let leading = true;
    const metrics = createRelayMetrics({ bus, incidents: { open: () => [current], get: () => current }, storeHealth: () => ({ backend: 'postgresql', ok: false, pending_writes: 3 }), leading: () => leading });

    bus.publish('approval.decided', { incident: current, approval: approval! });
    bus.publish('incident.timeline', { incident_id: 'INC-1', entry: { at: '2026-01-01T00:01:30.000Z', type: 'device.config_applied', message: 'Applied' } });
    bus.publish('incident.timeline', { incident_id: 'INC-1', entry: { at: '2026-01-01T00:01:31.000Z', type: 'device.refused', message: 'refused', tool: 'config_cli', reason: 'the approval was already applied' } });

    let text = await metrics.render();
    expect(text).toContain('fault_relay_approval_decision_seconds_sum{outcome="APPROVED"} 60');
    expect(text).toContain('fault_relay_approval_applied_seconds_sum 30');
    expect(text).toContain('fault_relay_device_calls_total{tool="config_cli",result="allowed",reason=""} 1');
    expect(text).toContain('fault_relay_device_calls_total{tool="config_cli",result="refused",reason="not_approved"} 1');
    expect(text).toContain('fault_relay_team_leader 1');
    expect(text).toContain('fault_relay_store_up{backend="postgresql"} 0');
    expect(text).toContain('fault_relay_incidents{state="approved"} 1');

    leading = false;
    metrics.stop();
    bus.publish('approval.decided', { incident: current, approval: approval! });
    text = await metrics.render();
    expect(text).toContain('fault_relay_team_leader 0');
    // Unsubscribed on stop: a closed relay counts nothing more.
    expect(text).toContain('fault_relay_approvals_decided_total{outcome="APPROVED",channel="api"} 1');
  });

  it('turns the guard’s free-text refusals into a fixed set of reasons', () => {
    expect(refusalReason('exec_cli', 'unknown incident INC-9')).toBe('unknown_incident');
    expect(refusalReason('config_cli', 'no device tool server is configured on the relay (DEVICE_MCP_URL or DEVICE_INVENTORY)')).toBe('no_device_server');
    expect(refusalReason('config_cli', 'the claim on the approval could not be recorded (db down): nothing was sent')).toBe('claim_not_durable');
    expect(refusalReason('exec_cli', '"conf t" is not a show command')).toBe('policy');
  });
});
