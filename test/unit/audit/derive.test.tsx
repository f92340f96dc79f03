import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AuditStatus } from '../../../renderer/components/incident-view';
import { linesSha256 } from '../../../src/core/approvals/lines';
import { auditLine, auditViewOf } from '../../../src/adapters/audit/audited-entries';
import { auditEventOf, entryEventId } from '../../../src/adapters/audit/derive';
import { formatRfc5424, octetCounted } from '../../../src/adapters/audit/syslog';
import { buildEvidenceBundle } from '../../../src/core/incidents/evidence-bundle';
import { incidentSchema, type TimelineEntry } from '../../../src/core/incidents/model';

const LINES = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const SHA = linesSha256(LINES);

const incident = incidentSchema.parse({
  incident_id: 'INC-20261126T100000Z',
  session_id: 'ses_1',
  alert_def_id: 'AD000002',
  device_hostname: 'R1',
  mode: 'strict',
  state: 'escalated',
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:05:00.000Z',
  occurrences: 1,
  last_seen: '2026-11-26T10:00:00.000Z',
  warnings: [],
  alert_vars: { neighbor_ip: '10.0.0.2', api_token: 'tok-should-not-leak' },
  approval_request: {
    request_id: 'REQ-AB12-CD34', summary: 'Bring 10.0.0.2 back', device: 'R1', commands: LINES, rollback: [], requested_at: '2026-11-26T10:01:00.000Z',
    expires_at: '2026-11-26T10:31:00.000Z', status: 'approved', lines_sha256: SHA, channels: ['webex'],
  },
  approval: { decision: 'APPROVED', effective: 'APPROVED', by: 'Ana Ruiz', channel: 'webex', at: '2026-11-26T10:02:00.000Z', commands: LINES, forwarded_at: null, request_id: 'REQ-AB12-CD34', apply_by: null },
  outcome: { kind: 'escalated', summary: 'rolled back', at: '2026-11-26T10:05:00.000Z' },
  dedup_key: 'k',
  delivery: { attempts: 1, next_attempt_at: null, last_error: null },
});

const timeline: TimelineEntry[] = [
  { at: '2026-11-26T10:00:00.000Z', type: 'alert.received', message: 'Alert AD000002 for R1 accepted' },
  { at: '2026-11-26T10:00:30.000Z', type: 'policy.verdict', message: 'Policy transit: one approval', rule: 'transit', groups: ['tier1'], count: 1, policy_sha256: 'c'.repeat(64), lines_sha256: SHA },
  { at: '2026-11-26T10:01:00.000Z', type: 'approval.requested', message: 'Approval requested', commands: LINES },
  { at: '2026-11-26T10:02:00.000Z', type: 'approval.decided', message: 'APPROVED by Ana Ruiz', decision: 'APPROVED', by: 'Ana Ruiz', channel: 'webex' },
  { at: '2026-11-26T10:03:00.000Z', type: 'device.config_applied', message: `Applied on R1: ${LINES.join(' / ')}`, device: 'R1', commands: LINES, output: 'R1(config-router)#' },
  { at: '2026-11-26T10:04:00.000Z', type: 'device.change_rolled_back', message: 'Change on R1 rolled back: post-check failed', change_id: 'chg-1', device: 'R1', state: 'rolled_back', reason: 'post_check' },
  { at: '2026-11-26T10:05:00.000Z', type: 'state.changed', message: 'approved → escalated', from: 'approved', to: 'escalated' },
];

const derived = timeline.map((entry, i) => auditEventOf({ incident, entry, timeline: timeline.slice(0, i + 1), relay: 'relay-1' }));

describe('audit events from the timeline', () => {
  it('one per decision, verdict, apply, rollback and escalation, none for the rest, each naming the incident, request and lines hash', () => {
    expect(derived.map((e) => e?.type ?? null)).toEqual([null, 'policy.verdict', null, 'decision', 'apply', 'rollback', 'escalation']);
    for (const e of derived.slice(3, 6)) expect(e).toMatchObject({ incident_id: incident.incident_id, request_id: 'REQ-AB12-CD34', lines_sha256: SHA, device: 'R1' });
    expect(derived[1]).toMatchObject({ outcome: 'approve', lines_sha256: SHA, detail: { rule: 'transit', policy_sha256: 'c'.repeat(64), count: 1 } });
    expect(derived[3]).toMatchObject({ actor: 'Ana Ruiz', channel: 'webex', outcome: 'APPROVED' });
    expect(derived[5]).toMatchObject({ type: 'rollback', actor: 'relay', outcome: 'rolled_back', detail: { change_id: 'chg-1', reason: 'post_check' } });
  });

  it('carry the evidence bundle as it stood at the event, a stable id, and never a line, an output or a secret', () => {
    const decision = derived[3]!;
    expect(decision.evidence_sha256).toBe(buildEvidenceBundle({ incident, timeline: timeline.slice(0, 4), now: new Date(timeline[3]!.at) }).manifest.content_sha256);
    expect(decision.id).toBe(entryEventId(incident.incident_id, timeline[3]!));
    expect(auditEventOf({ incident, entry: timeline[3]!, timeline: timeline.slice(0, 4), relay: 'relay-2' })?.id).toBe(decision.id);
    const all = JSON.stringify(derived) + derived.flatMap((e) => (e ? [octetCounted(formatRfc5424(e, 'relay-1'))] : [])).join('');
    for (const leak of ['no neighbor 10.0.0.2 shutdown', 'router bgp 65001', 'R1(config-router)#', 'tok-should-not-leak']) expect(all).not.toContain(leak);
  });

  it('the tray and /ui say whether they reached the SIEM, from the timeline alone', () => {
    const ids = derived.flatMap((e) => (e ? [e.id] : []));
    const progress = (type: string, some: string[], extra: Record<string, unknown> = {}): TimelineEntry => ({ at: '2026-11-26T10:06:00.000Z', type, message: type, sink: 'splunk_hec', ids: some, ...extra });
    const html = (entries: TimelineEntry[]) => renderToStaticMarkup(<AuditStatus timeline={entries} />);
    expect(html(timeline)).toBe('');
    expect(html([...timeline, progress('audit.waiting', ids.slice(0, 2), { reason: 'HTTP 503 code 9: Server is busy' })])).toContain('Audit: waiting for splunk_hec (5 of 5: HTTP 503 code 9: Server is busy)');
    expect(auditLine(auditViewOf([...timeline, progress('audit.delivered', ids.slice(0, 3))]))).toBe('Audit: waiting for splunk_hec (2 of 5)');
    expect(html([...timeline, progress('audit.delivered', ids)])).toContain('Audit: 5 events delivered (splunk_hec)');
    expect(html([...timeline, progress('audit.delivered', ids.slice(1)), progress('audit.failed', ids.slice(0, 1), { reason: 'HTTP 400' })])).toContain('Audit: refused by splunk_hec (1)');
  });
});
