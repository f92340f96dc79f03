import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { linesSha256 } from '../../../src/core/approvals/lines';
import { buildEvidenceBundle, evidenceBundleSchema, verifyEvidenceBundle, type EvidenceBundle } from '../../../src/core/incidents/evidence-bundle';
import { redactDeviceSecrets } from '../../../src/core/incidents/evidence-redact';
import { renderEvidenceMarkdown } from '../../../src/core/incidents/evidence-markdown';
import { incidentSchema, type TimelineEntry } from '../../../src/core/incidents/model';
import { createSecretScrubber } from '../../../src/adapters/log/secret-scrubber';

const LINES = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const SHA = linesSha256(LINES);
const RELAY_SECRET = 'webhook-s3cret-value-42';
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

const incident = (over: Record<string, unknown> = {}) =>
  incidentSchema.parse({
    incident_id: 'INC-20261126T100000Z',
    session_id: 'ses_1',
    alert_def_id: 'AD000002',
    device_hostname: 'R1',
    mode: 'strict',
    state: 'resolved',
    created_at: '2026-11-26T10:00:00.000Z',
    updated_at: '2026-11-26T10:05:00.000Z',
    occurrences: 1,
    last_seen: '2026-11-26T10:00:00.000Z',
    warnings: [],
    alert_vars: { neighbor_ip: '10.0.0.2', api_token: 'tok-should-not-leak' },
    approval_request: {
      request_id: 'REQ-1',
      summary: 'Bring 10.0.0.2 back',
      device: 'R1',
      commands: LINES,
      rollback: ['router bgp 65001', 'neighbor 10.0.0.2 shutdown'],
      requested_at: '2026-11-26T10:01:00.000Z',
      expires_at: '2026-11-26T10:31:00.000Z',
      status: 'approved',
      lines_sha256: SHA,
      channels: ['desktop'],
    },
    approval: {
      decision: 'APPROVED', effective: 'APPROVED', by: 'alice@example.net', channel: 'desktop', at: '2026-11-26T10:02:00.000Z',
      commands: LINES, forwarded_at: '2026-11-26T10:02:01.000Z', request_id: 'REQ-1', apply_by: null,
    },
    application: { status: 'applied', device: 'R1', at: '2026-11-26T10:03:00.000Z', error: null },
    outcome: { kind: 'resolved', summary: 'neighbor Established', at: '2026-11-26T10:05:00.000Z' },
    dedup_key: 'k',
    delivery: { attempts: 1, next_attempt_at: null, last_error: null },
    ...over,
  });

const exec = (at: string, command: string, output: string): TimelineEntry => ({ at, type: 'device.exec', message: `R1# ${command}`, device: 'R1', command, output });

const timeline: TimelineEntry[] = [
  { at: '2026-11-26T10:00:00.000Z', type: 'alert.received', message: 'Alert AD000002 for R1 accepted' },
  exec('2026-11-26T10:00:10.000Z', 'show ip bgp neighbors 10.0.0.2', 'BGP neighbor is 10.0.0.2\n  BGP state = Idle (Admin. shutdown)'),
  exec('2026-11-26T10:00:20.000Z', 'show running-config | section bgp', `router bgp 65001\n neighbor 10.0.0.2 password MyBgpPass\n neighbor 10.0.0.3 password 7 0822455D0A16\n! token ${RELAY_SECRET}`),
  { at: '2026-11-26T10:01:00.000Z', type: 'approval.requested', message: 'Approval REQ-1 requested' },
  { at: '2026-11-26T10:03:00.000Z', type: 'device.config_applied', message: 'Applied on R1', device: 'R1', commands: LINES, output: 'R1(config-router)#' },
  { at: '2026-11-26T10:03:01.000Z', type: 'device.change_pending', message: 'change c-1 pending', change_id: 'c-1', device: 'R1', deadline: '2026-11-26T10:05:00.000Z', state: 'pending' },
  { ...exec('2026-11-26T10:04:00.000Z', 'show ip bgp neighbors 10.0.0.2', 'BGP neighbor is 10.0.0.2\n  BGP state = Established'), by: 'post-check' },
  { at: '2026-11-26T10:04:01.000Z', type: 'device.change_confirmed', message: 'Change on R1 confirmed by post-check', change_id: 'c-1', device: 'R1', state: 'confirmed', reason: 'post_check' },
];

const build = (tl: TimelineEntry[] = timeline, over: Record<string, unknown> = {}) =>
  buildEvidenceBundle({ incident: incident(over), timeline: tl, now: new Date('2026-11-26T11:00:00.000Z'), scrub: createSecretScrubber([RELAY_SECRET]).scrub });

describe('evidence bundle', () => {
  it('splits the show outputs at the first applied change: before the change, after it', () => {
    const bundle = build();
    expect(bundle.before.map((o) => o.command)).toEqual(['show ip bgp neighbors 10.0.0.2', 'show running-config | section bgp']);
    expect(bundle.before[0]?.output).toMatch(/Admin\. shutdown/);
    expect(bundle.after).toHaveLength(1);
    expect(bundle.after[0]?.output).toMatch(/Established/);
    expect(bundle.approval_request).toMatchObject({ request_id: 'REQ-1', lines: LINES, lines_sha256: SHA, lines_sha256_matches: true, preview: null });
    expect(bundle.decision).toMatchObject({ decision: 'APPROVED', by: 'alice@example.net', channel: 'desktop', at: '2026-11-26T10:02:00.000Z' });
    expect(bundle.after[0]?.by).toBe('post-check');
    expect(bundle.change).toMatchObject({ result: 'confirmed', summary: 'Change on R1 confirmed by post-check', change_id: 'c-1', reason: 'post_check', applied_at: '2026-11-26T10:03:00.000Z' });
    expect(evidenceBundleSchema.safeParse(bundle).success).toBe(true);
  });

  it('without an applied change every output is evidence from before, and the change says so', () => {
    const bundle = build(timeline.slice(0, 4), { application: { status: 'none', device: null, at: null, error: null } });
    expect(bundle.before).toHaveLength(2);
    expect(bundle.after).toEqual([]);
    expect(bundle.change.result).toBe('not_applied');
  });

  it('says why a change was rolled back', () => {
    const rolled: TimelineEntry = { at: '2026-11-26T10:05:00.000Z', type: 'device.change_rolled_back', message: 'Change on R1 rolled back: not confirmed within 120 s', change_id: 'c-1', device: 'R1', state: 'rolled_back', reason: 'deadline' };
    const bundle = build([...timeline.slice(0, 7), rolled]);
    expect(bundle.change).toMatchObject({ result: 'rolled_back', summary: 'Change on R1 rolled back: not confirmed within 120 s', reason: 'deadline', deadline: '2026-11-26T10:05:00.000Z' });
    expect(renderEvidenceMarkdown(bundle)).toContain('**rolled_back**: Change on R1 rolled back: not confirmed within 120 s');
    // Still provisional: neither confirmed nor rolled back yet.
    expect(build(timeline.slice(0, 7)).change).toMatchObject({ result: 'pending_confirmation', change_id: 'c-1', deadline: '2026-11-26T10:05:00.000Z' });
  });

  it('hashes every part so a copy can be verified, and a changed byte is found', () => {
    const bundle = build();
    expect(verifyEvidenceBundle(bundle)).toEqual([]);
    const paths = bundle.manifest.parts.map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['/incident', '/approval_request', '/approval_request/lines', '/decision', '/before/0/output', '/before/1/output', '/after/0/output', '/change']));
    // Text parts are checkable with any sha256 tool: the lines hash is the one the human was shown.
    expect(bundle.manifest.parts.find((p) => p.path === '/approval_request/lines')?.sha256).toBe(SHA);
    expect(bundle.manifest.parts.find((p) => p.path === '/after/0/output')?.sha256).toBe(sha256(bundle.after[0]!.output));

    const copy = JSON.parse(JSON.stringify(bundle)) as EvidenceBundle;
    expect(verifyEvidenceBundle(copy)).toEqual([]);
    copy.after[0]!.output = copy.after[0]!.output.replace('Established', 'Idle');
    expect(verifyEvidenceBundle(copy)).toEqual(['/after/0/output', 'content_sha256']);
  });

  it('never carries a secret: device passwords, the relay\'s own secrets, credential-named alert variables', () => {
    const bundle = build();
    const json = JSON.stringify(bundle);
    const md = renderEvidenceMarkdown(bundle);
    for (const secret of ['MyBgpPass', '0822455D0A16', RELAY_SECRET, 'tok-should-not-leak']) {
      expect(json).not.toContain(secret);
      expect(md).not.toContain(secret);
    }
    expect(bundle.before[1]?.output).toContain('neighbor 10.0.0.2 password [redacted]');
    expect(bundle.before[1]?.redactions).toBe(3);
    expect(md).toMatch(/3 secret value\(s\) redacted/);
  });

  it('marks an output the guard cut short, and keeps a preview the request carried', () => {
    const long = `${'x'.repeat(20_000)}…`;
    const request = { ...incident().approval_request!, preview: { device: 'R1', accepted: true, method: 'predicted' as const, added: [], removed: ['router bgp 65001 > neighbor 10.0.0.2 shutdown'], problems: [] } };
    const bundle = build([exec('2026-11-26T10:00:10.000Z', 'show tech', long)], { approval_request: request });
    expect(bundle.before[0]?.truncated).toBe(true);
    // The record's schema does not know a preview yet: it is read when a request carries one.
    const withPreview = buildEvidenceBundle({ incident: { ...incident(), approval_request: request }, timeline: [], now: new Date() });
    expect(withPreview.approval_request?.preview).toEqual(request.preview);
    expect(withPreview.manifest.parts.map((p) => p.path)).toContain('/approval_request/preview');
    expect(renderEvidenceMarkdown(withPreview)).toContain('neighbor 10.0.0.2 shutdown');
  });

  it('renders Markdown a person can read, with the manifest\'s hashes', () => {
    const bundle = build();
    const md = renderEvidenceMarkdown(bundle);
    expect(md).toContain('# Evidence: INC-20261126T100000Z');
    expect(md).toContain(`| Lines sha256 | ${SHA} (matches the lines) |`);
    expect(md).toContain('| By | alice@example.net |');
    expect(md).toMatch(/## Before the change[\s\S]*Admin\. shutdown[\s\S]*## After the change[\s\S]*Established/);
    expect(md).toContain('**confirmed**: Change on R1 confirmed by post-check');
    for (const part of bundle.manifest.parts) expect(md).toContain(part.sha256);
  });

  it('redacts device secrets in their usual spellings and leaves ordinary output alone', () => {
    const text = ['enable secret 5 $1$abcd$xyz', 'snmp-server community PubLic RO', ' ip ospf message-digest-key 1 md5 OspfKey', 'key-string 7 104D000A0618', '<password>hunter22</password>', 'BGP state = Established, up for 00:01:02'].join('\n');
    const out = redactDeviceSecrets(text);
    for (const secret of ['$1$abcd$xyz', 'PubLic', 'OspfKey', '104D000A0618', 'hunter22']) expect(out.text).not.toContain(secret);
    expect(out.redactions).toBe(5);
    expect(out.text).toContain('BGP state = Established, up for 00:01:02');
  });
});
