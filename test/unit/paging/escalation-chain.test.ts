import { describe, expect, it } from 'vitest';
import { GENIE_KEY, LINES_SHA, MIN, ROUTING_KEY, pagingStand } from './paging-stand';
import { entries } from '../../../src/core/events/timeline-entries';

describe('the escalation chain (pinned clock, real outbox, fake pagers on the wire)', () => {
  it('reminds, then pages PagerDuty, then Opsgenie, each step at its time and once', async () => {
    const s = await pagingStand();
    const incident = s.awaiting();
    const id = incident.incident_id;
    await s.advance(5 * MIN - 1);
    expect(s.reminders).toEqual([]);
    await s.advance(1);
    expect(s.reminders).toEqual([`⏰ **${id}**: request REQ-7KQ2-M9XD for R1 has waited 5m for a decision.`]);
    expect(s.pd.received).toEqual([]);

    await s.advance(5 * MIN);
    expect(s.pd.accepted).toHaveLength(1);
    const trigger = s.pd.accepted[0]!;
    expect(trigger).toMatchObject({ routing_key: ROUTING_KEY, event_action: 'trigger', dedup_key: id, payload: { source: 'R1', severity: 'error', custom_details: { incident: id, device: 'R1', lines_sha256: LINES_SHA, request_id: 'REQ-7KQ2-M9XD', to: 'noc-oncall' } } });
    expect(trigger.links).toEqual([
      { href: `https://relay.example.net/ui/#/incidents/${id}`, text: 'Incident in Fault Relay' },
      { href: `https://relay.example.net/incidents/${id}/evidence`, text: 'Evidence bundle' },
    ]);
    expect(s.og.calls).toEqual([]);

    await s.advance(10 * MIN);
    expect(s.og.calls).toHaveLength(1);
    expect(s.og.calls[0]).toMatchObject({ path: '/v2/alerts', body: { alias: id, priority: 'P3', details: { request_id: 'REQ-7KQ2-M9XD', lines_sha256: LINES_SHA } } });
    // Nothing of a key is in what the pager was sent but its own credential.
    expect(JSON.stringify(s.og.received.map((r) => r.body))).not.toContain(ROUTING_KEY);
    expect(JSON.stringify(s.pd.received.map((r) => r.body))).not.toContain(GENIE_KEY);

    await s.advance(60 * MIN);
    expect(s.pd.accepted).toHaveLength(1);
    expect(s.og.calls).toHaveLength(1);
    expect(s.pages(id).map((e) => [e.type, e.pager, e.step])).toEqual([
      ['page.sent', 'remind', 0],
      ['page.sent', 'pagerduty', 1],
      ['page.sent', 'opsgenie', 2],
    ]);
  });

  it('stops the moment a person decides, and acknowledges the page that went out', async () => {
    const s = await pagingStand();
    const { incident_id: id } = s.awaiting();
    await s.advance(10 * MIN);
    expect(s.pd.accepted.map((e) => e.event_action)).toEqual(['trigger']);
    const at = s.clock.now().toISOString();
    s.incidents.transition(id, 'approve', (cur) => ({
      approval_request: { ...cur.approval_request!, status: 'approved' },
      approval: { decision: 'APPROVED', effective: 'APPROVED', by: 'Ana Ruiz', channel: 'webex', at, commands: cur.approval_request!.commands, forwarded_at: null, acknowledged_at: null, request_id: 'REQ-7KQ2-M9XD', apply_by: null },
    }));
    await s.advance(0);
    await s.advance(60 * MIN);
    expect(s.pd.accepted.map((e) => e.event_action)).toEqual(['trigger', 'acknowledge']);
    expect(s.og.calls).toEqual([]);
  });

  it('stops when the incident is acknowledged, even before any page went out', async () => {
    const s = await pagingStand();
    const { incident_id: id } = s.awaiting();
    await s.advance(6 * MIN);
    s.incidents.record(id, entries.incidentAcknowledged, 'Acknowledged by Ana Ruiz (api): pages stop', { by: 'Ana Ruiz', channel: 'api' });
    await s.advance(60 * MIN);
    expect(s.pd.received).toEqual([]);
    expect(s.og.received).toEqual([]);
  });

  it('pages every pager at once when a run fails', async () => {
    const s = await pagingStand([]);
    const incident = s.running('ses_2');
    s.incidents.transition(incident.incident_id, 'fail', () => ({ outcome: { kind: 'failed', summary: 'the device did not answer', at: s.clock.now().toISOString() } }));
    await s.advance(0);
    expect(s.pd.accepted).toMatchObject([{ event_action: 'trigger', dedup_key: incident.incident_id, payload: { class: 'failed' } }]);
    expect(s.og.calls).toMatchObject([{ path: '/v2/alerts', body: { alias: incident.incident_id } }]);
  });

  it('resolves the page when the run is resolved, with its outcome as the final note (the agent\'s words labelled)', async () => {
    const s = await pagingStand();
    const { incident_id: id } = s.awaiting();
    await s.advance(20 * MIN);
    const at = s.clock.now().toISOString();
    s.incidents.transition(id, 'approve', (cur) => ({
      approval_request: { ...cur.approval_request!, status: 'approved' },
      approval: { decision: 'APPROVED', effective: 'APPROVED', by: 'Ana Ruiz', channel: 'api', at, commands: cur.approval_request!.commands, forwarded_at: null, acknowledged_at: null, request_id: 'REQ-7KQ2-M9XD', apply_by: null },
    }));
    s.incidents.transition(id, 'resume');
    s.incidents.transition(id, 'resolve', () => ({ outcome: { kind: 'resolved', summary: 'Session Established again', at, by: 'agent' } }));
    await s.advance(0);
    expect(s.pd.accepted.map((e) => e.event_action)).toEqual(['trigger', 'acknowledge', 'resolve']);
    expect(s.pd.accepted[2]?.payload?.summary).toContain('The agent reported (its words, unverified): "Session Established again"');
    expect(s.og.calls.map((c) => c.path)).toEqual(['/v2/alerts', `/v2/alerts/${id}/acknowledge?identifierType=alias`, `/v2/alerts/${id}/close?identifierType=alias`]);
    expect(s.og.calls[2]?.body.note).toContain('Session Established again');
  });
});
