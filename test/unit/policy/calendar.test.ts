import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { evaluatePolicy, type PolicyContext } from '../../../src/core/policy/evaluate';
import { loadPolicy, type LoadedPolicy } from '../../../src/core/policy/load';
import { openRelayPolicy } from '../../../src/core/policy/relay-policy';
import type { Incident } from '../../../src/core/incidents/model';
import { silent } from '../../helpers/relay';
import { tempDir } from '../../helpers/temp-dir';

const root = resolve(import.meta.dirname, '../../..');

const loaded = (file: string): LoadedPolicy => {
  const load = loadPolicy(file);
  if (!load.ok) throw new Error(load.problems.map((p) => p.message).join('\n'));
  return load.loaded;
};

const change = (at: string, device: string, vars: Record<string, string>): PolicyContext => ({
  alert: { alert_def_id: 'AD000002', device, severity: 'P2', vars },
  device: { name: device },
  lines: ['router bgp 65001', 'no neighbor x shutdown'],
  at: new Date(at),
});

const calendar = (...events: string[][]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events.flatMap((e) => ['BEGIN:VEVENT', ...e, 'END:VEVENT']), 'END:VCALENDAR', ''].join('\r\n');

function policyWith(ics: string, zone = 'UTC'): string {
  const dir = tempDir('fault-relay-calendar-');
  writeFileSync(join(dir, 'windows.ics'), ics);
  const file = join(dir, 'policy.yaml');
  writeFileSync(file, ['version: 1', `timezone: ${zone}`, 'change_records: windows.ics', 'classes:', '  - {id: C, when: "true", approve: {groups: [tier1]}}', ''].join('\n'));
  return file;
}

describe('recurring maintenance windows from an iCalendar file', () => {
  it('the shipped calendar: the AS65003 window on the first Tuesday crosses midnight, and only for what it names', () => {
    const p = loaded(join(root, 'policy.yaml'));
    const r2 = (at: string, neighbor = '10.0.0.9') => evaluatePolicy(p, change(at, 'R2', { neighbor_ip: neighbor }));
    // 2027-02-02 is the first Tuesday of February: 22:00 to 02:00 the next day, UTC.
    expect(r2('2027-02-02T21:59:59Z')).toMatchObject({ kind: 'approve' });
    expect(r2('2027-02-02T22:00:00Z')).toMatchObject({ kind: 'escalate', rule: 'maintenance window as65003-regional-r2', owner: 'AS65003 regional change manager' });
    expect(r2('2027-02-03T01:59:59Z')).toMatchObject({ kind: 'escalate', rule: 'maintenance window as65003-regional-r2' });
    expect(r2('2027-02-03T02:00:00Z')).toMatchObject({ kind: 'approve' });
    expect(r2('2027-02-09T23:00:00Z')).toMatchObject({ kind: 'approve' });
    expect(r2('2027-02-02T23:00:00Z', '10.0.0.1')).toMatchObject({ kind: 'approve' });
  });

  it('every field the window names must match, and a window is no reason to hold anything else', () => {
    const p = loaded(join(root, 'policy.yaml'));
    // 2027-01-05 is the first Tuesday of January; the ACME window needs a ticket, so it is no recurring event.
    expect(evaluatePolicy(p, change('2027-01-05T23:00:00Z', 'R1', { neighbor_ip: '10.0.0.6' }))).toMatchObject({ kind: 'escalate', rule: 'maintenance window as65003-regional-r1' });
    expect(evaluatePolicy(p, change('2027-01-05T23:00:00Z', 'R2', { neighbor_ip: '10.0.0.6' }))).toMatchObject({ kind: 'approve' });
    expect(evaluatePolicy(p, change('2027-01-22T00:30:00Z', 'R1', { neighbor_ip: '10.1.1.2', vrf_name: 'CUST-A' }))).toMatchObject({ kind: 'escalate', rule: 'SC-BGP-02' });
  });

  it('a window in a zone with daylight saving keeps its local hours in winter and in summer', () => {
    const file = policyWith(calendar(['UID:sun', 'DTSTART;TZID=Europe/Amsterdam:20260104T090000', 'DTEND;TZID=Europe/Amsterdam:20260104T100000', 'RRULE:FREQ=WEEKLY;BYDAY=SU', 'X-DEVICE:R1', 'ORGANIZER;CN=Core team:mailto:core@example.net']));
    const p = loaded(file);
    const at = (t: string) => evaluatePolicy(p, change(t, 'R1', {})).kind;
    // 09:00 Amsterdam is 08:00Z in winter (CET) and 07:00Z in summer (CEST).
    expect([at('2026-01-11T07:59:00Z'), at('2026-01-11T08:30:00Z'), at('2026-01-11T09:00:00Z')]).toEqual(['approve', 'escalate', 'approve']);
    expect([at('2026-07-05T06:59:00Z'), at('2026-07-05T07:30:00Z'), at('2026-07-05T08:30:00Z')]).toEqual(['approve', 'escalate', 'approve']);
    expect(evaluatePolicy(p, change('2026-07-05T07:30:00Z', 'R1', {}))).toMatchObject({ owner: 'Core team' });
  });

  it('an excluded date and a cancelled event open no window', () => {
    const file = policyWith(
      calendar(
        ['UID:daily', 'DTSTART:20260101T020000Z', 'DTEND:20260101T030000Z', 'RRULE:FREQ=DAILY', 'EXDATE:20260110T020000Z', 'X-DEVICE:R1', 'X-OWNER:night shift'],
        ['UID:gone', 'STATUS:CANCELLED', 'DTSTART:20260101T120000Z', 'DTEND:20260101T130000Z', 'RRULE:FREQ=DAILY', 'X-DEVICE:R1', 'X-OWNER:nobody'],
      ),
    );
    const p = loaded(file);
    const at = (t: string) => evaluatePolicy(p, change(t, 'R1', {})).kind;
    expect([at('2026-01-09T02:30:00Z'), at('2026-01-10T02:30:00Z'), at('2026-01-11T02:30:00Z'), at('2026-01-11T12:30:00Z')]).toEqual(['escalate', 'approve', 'escalate', 'approve']);
  });

  it('a calendar event the relay cannot honour is refused at its line, with a fix', () => {
    const ics = calendar(['UID:ok', 'DTSTART:20260101T020000Z', 'DTEND:20260101T030000Z', 'X-DEVICE:R1', 'X-OWNER:a'], ['UID:nodevice', 'DTSTART:20260101T020000Z', 'DTEND:20260101T030000Z', 'X-OWNER:a'], ['UID:hourly', 'DTSTART:20260101T020000Z', 'DTEND:20260101T021000Z', 'RRULE:FREQ=HOURLY', 'X-DEVICE:R1', 'X-OWNER:a'], ['UID:zone', 'DTSTART;TZID=W. Europe Standard Time:20260101T020000', 'DTEND;TZID=W. Europe Standard Time:20260101T030000', 'X-DEVICE:R1', 'X-OWNER:a']);
    const load = loadPolicy(policyWith(ics));
    expect(load.ok).toBe(false);
    if (load.ok) return;
    expect(load.problems.map((p) => [p.line, p.message])).toEqual([
      [11, expect.stringMatching(/^nodevice: the event names no device \(X-DEVICE:R1\)/)],
      [17, expect.stringMatching(/^hourly: RRULE FREQ=HOURLY recurs more often than daily/)],
      [25, expect.stringMatching(/^zone: TZID W\. Europe Standard Time is not an IANA time zone name/)],
    ]);
    expect(load.problems.every((p) => p.file.endsWith('windows.ics') && p.fix.length > 0)).toBe(true);
    expect(loadPolicy(policyWith('not a calendar'))).toMatchObject({ ok: false, problems: [{ line: 1, message: expect.stringMatching(/^not an iCalendar file/) }] });
  });

  it('npm run policy -- explain names the window and its owner for a time in the policy zone', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/policy.ts', 'explain', '--alert', 'alert_def_id=AD000002,neighbor_ip=10.0.0.9', '--device', 'R2', '--at', '2027-02-02T23:15'], { cwd: root, encoding: 'utf8' });
    expect(out).toMatch(/^ESCALATE by maintenance window as65003-regional-r2 at 2027-02-02T23:15:00\.000Z: .*its owner \(AS65003 regional change manager\) decides/);
  });

  it('an edit to the calendar is picked up by a running relay, and the policy reads the device\'s inventory tags', async () => {
    const file = policyWith(calendar(['UID:later', 'DTSTART:20300101T000000Z', 'DTEND:20300101T010000Z', 'X-DEVICE:R1', 'X-OWNER:core']));
    writeFileSync(file, ['version: 1', 'change_records: windows.ics', 'classes:', '  - {id: core-router, when: \'device.tags.role == "core"\', escalate: "core routers are changed by the core team"}', '  - {id: C, when: "true", approve: {groups: [tier1]}}', ''].join('\n'));
    const tags: Record<string, Record<string, string>> = { R1: { role: 'edge' }, R9: { role: 'core' } };
    const policy = openRelayPolicy(file, silent, { pollMs: 20, device: (name) => ({ platform: 'frr', tags: tags[name] ?? {} }) });
    const incident = (device: string) => ({ alert_def_id: 'AD000002', device_hostname: device, severity: 'P2', alert_vars: { neighbor_ip: '10.0.0.2' } }) as unknown as Incident;
    const at = new Date('2026-12-06T02:30:00Z');
    try {
      expect(policy.verdict(incident('R9'), [], at)).toMatchObject({ kind: 'escalate', rule: 'core-router' });
      expect(policy.verdict(incident('R1'), [], at)).toMatchObject({ kind: 'approve', rule: 'C' });
      writeFileSync(join(file, '..', 'windows.ics'), calendar(['UID:now', 'DTSTART:20261206T020000Z', 'DTEND:20261206T040000Z', 'X-DEVICE:R1', 'X-OWNER:core']));
      await vi.waitFor(() => expect(policy.verdict(incident('R1'), [], at)).toMatchObject({ kind: 'escalate', rule: 'maintenance window now', owner: 'core' }), { timeout: 10_000, interval: 20 });
    } finally {
      policy.stop();
    }
  });
});
