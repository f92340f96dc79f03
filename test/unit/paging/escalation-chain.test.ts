import { describe, expect, it, onTestFinished } from 'vitest';
import type { Incident } from '../../../src/incidents/model';
import { loadConfig } from '../../../src/config/load';
import { setUpPaging } from '../../../src/paging/setup';
import type { EscalationStep } from '../../../src/policy/schema';
import { fakeOpsgenie, fakePagerDuty } from '../../fakes/pagers';
import { silent } from '../../helpers/relay';
import { tempDir } from '../../helpers/temp-dir';
import { inMemoryIncidents, manualClock } from '../incidents/in-memory-incidents';

const ROUTING_KEY = 'pd-routing-key-0123456789abcdef';
const GENIE_KEY = 'genie-key-0123456789';
const MIN = 60_000;
const LINES_SHA = 'ab'.repeat(32);

const CHAIN: EscalationStep[] = [
  { after: 5 * MIN, notify: 'remind' },
  { after: 10 * MIN, notify: 'pagerduty', to: 'noc-oncall' },
  { after: 20 * MIN, notify: 'opsgenie', to: 'neteng-oncall' },
];

/** The relay's incidents on a pinned clock, the paging of a relay with both pagers, and the two fakes. */
async function pagingStand(steps: EscalationStep[] = CHAIN) {
  const clock = manualClock();
  const { incidents, running, bus } = inMemoryIncidents(clock);
  const pd = await fakePagerDuty(ROUTING_KEY);
  const og = await fakeOpsgenie(GENIE_KEY);
  const config = loadConfig({ PAGERDUTY_ROUTING_KEY: ROUTING_KEY, PAGERDUTY_URL: pd.url, OPSGENIE_API_KEY: GENIE_KEY, OPSGENIE_URL: og.url, RELAY_PUBLIC_URL: 'https://relay.example.net', RELAY_DATA_DIR: tempDir('paging-data-') });
  const reminders: string[] = [];
  const paging = setUpPaging({ config, incidents, bus, clock, logger: silent, owns: () => true, remind: (_id, text) => reminders.push(text), steps: () => steps });
  paging.start();
  onTestFinished(() => paging.stop());
  const awaiting = (device = 'R1'): Incident => {
    const incident = running('ses_1', { device });
    const at = clock.now();
    return incidents.transition(incident.incident_id, 'request_approval', () => ({
      approval_request: {
        request_id: 'REQ-7KQ2-M9XD',
        summary: 'Re-activate the BGP neighbor',
        device,
        commands: ['router bgp 65001', 'neighbor 10.0.0.2 activate'],
        rollback: [],
        requested_at: at.toISOString(),
        expires_at: new Date(at.getTime() + 30 * MIN).toISOString(),
        status: 'pending',
        lines_sha256: LINES_SHA,
        channels: ['webex'],
        terminal_shown_at: null,
      },
    }));
  };
  /** Moves the pinned clock, then lets every page decided on the way be queued and sent. */
  const advance = async (ms: number) => {
    clock.advance(ms);
    await paging.settled();
  };
  const pages = (id: string) => incidents.timeline(id).filter((e) => e.type.startsWith('page.'));
  return { clock, incidents, running, paging, pd, og, reminders, awaiting, advance, pages };
}

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
    s.incidents.record(id, 'incident.acknowledged', 'Acknowledged by Ana Ruiz (api): pages stop', { by: 'Ana Ruiz', channel: 'api' });
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
