import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluatePolicy, type PolicyContext } from '../../../src/core/policy/evaluate';
import { loadPolicy, type LoadedPolicy } from '../../../src/core/policy/load';
import { instantOf } from '../../../src/core/policy/zoned-time';
import { tempDir } from '../../helpers/temp-dir';

const shipped = (): LoadedPolicy => {
  const load = loadPolicy(resolve(import.meta.dirname, '../../../policy.yaml'));
  if (!load.ok) throw new Error(load.problems.map((p) => p.message).join('\n'));
  return load.loaded;
};

const bgp = (at: string, vars: Record<string, string> = { neighbor_ip: '10.0.0.2' }, severity = 'P2'): PolicyContext => ({
  alert: { alert_def_id: 'AD000002', device: 'R1', severity, vars },
  device: { name: 'R1' },
  lines: ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'],
  at: new Date(at),
});
const custA = (at: string, severity = 'P2') => bgp(at, { neighbor_ip: '10.1.1.2', vrf_name: 'CUST-A' }, severity);

function policyFile(text: string, extra: Record<string, string> = {}): string {
  const dir = tempDir('fault-relay-policy-');
  for (const [name, body] of Object.entries(extra)) writeFileSync(join(dir, name), body);
  const file = join(dir, 'policy.yaml');
  writeFileSync(file, text);
  return file;
}

describe('the shipped policy says what the KB says', () => {
  it('loads, and a customer-VRF neighbor is approvable by Tier 2 only from 06:00 to 22:00 UTC', () => {
    const p = shipped();
    expect(evaluatePolicy(p, custA('2026-11-28T05:59:59Z'))).toMatchObject({ kind: 'escalate', rule: 'SC-BGP-02' });
    expect(evaluatePolicy(p, custA('2026-11-28T06:00:00Z'))).toMatchObject({ kind: 'approve', rule: 'SC-BGP-02', groups: ['tier2'], count: 1 });
    expect(evaluatePolicy(p, custA('2026-11-28T21:59:59Z'))).toMatchObject({ kind: 'approve', rule: 'SC-BGP-02' });
    expect(evaluatePolicy(p, custA('2026-11-28T22:00:00Z'))).toMatchObject({ kind: 'escalate', rule: 'SC-BGP-02' });
  });

  it('a transit neighbor is Tier 1 or Tier 2, one approval, any time outside the freeze', () => {
    expect(evaluatePolicy(shipped(), bgp('2026-11-28T03:00:00Z'))).toMatchObject({ kind: 'approve', rule: 'SC-BGP-01', groups: ['tier1', 'tier2'], count: 1 });
  });

  it('in the freeze only P1 goes through, and then it takes the change manager and Tier 2: two people', () => {
    const p = shipped();
    expect(evaluatePolicy(p, bgp('2026-12-17T23:59:59Z'))).toMatchObject({ kind: 'approve', rule: 'SC-BGP-01', count: 1 });
    expect(evaluatePolicy(p, bgp('2026-12-18T00:00:00Z'))).toMatchObject({ kind: 'escalate', rule: 'SC-BGP-01 in freeze year-end' });
    expect(evaluatePolicy(p, bgp('2026-12-18T00:00:00Z', undefined, 'P1'))).toMatchObject({ kind: 'approve', groups: ['change-manager', 'tier2'], count: 2 });
    expect(evaluatePolicy(p, bgp('2027-01-04T00:00:00Z'))).toMatchObject({ kind: 'approve', rule: 'SC-BGP-01', count: 1 });
  });

  it('a neighbor an open change record names, inside its window, goes to the record owner; before, after, or closed, it does not', () => {
    const p = shipped();
    const six = (at: string) => bgp(at, { neighbor_ip: '10.0.0.6' });
    expect(evaluatePolicy(p, six('2026-12-01T21:59:59Z'))).toMatchObject({ kind: 'approve' });
    expect(evaluatePolicy(p, six('2026-12-01T22:00:00Z'))).toMatchObject({ kind: 'escalate', rule: 'change record CHG-2026-1187', owner: 'AS65003 regional change manager' });
    expect(evaluatePolicy(p, six('2026-12-02T02:00:00Z'))).toMatchObject({ kind: 'approve' });
    // CHG-2026-1090 is closed: its window does not hold the CUST-A neighbor.
    expect(evaluatePolicy(p, custA('2026-11-20T00:30:00Z'))).toMatchObject({ rule: 'SC-BGP-02' });
  });

  it('a spare interface is never approvable by card, and a change no class names is escalated', () => {
    const p = shipped();
    const ifc = (name: string): PolicyContext => ({ alert: { alert_def_id: 'AD000003', device: 'R1', vars: { interface: name } }, device: { name: 'R1' }, lines: [], at: new Date('2026-11-28T12:00:00Z') });
    expect(evaluatePolicy(p, ifc('GigabitEthernet4'))).toMatchObject({ kind: 'escalate', rule: 'spare-interface' });
    expect(evaluatePolicy(p, ifc('GigabitEthernet2'))).toMatchObject({ kind: 'approve', rule: 'SC-INT-01' });
    expect(evaluatePolicy(p, { ...ifc('x'), alert: { alert_def_id: 'AD000099', device: 'R1', vars: {} } })).toMatchObject({ kind: 'escalate', rule: 'default' });
  });
});

describe('a policy file with mistakes', () => {
  it('names each at its line and column, with a fix', () => {
    const file = policyFile(
      ['version: 1', 'timezone: Mars/Olympus', 'classes:', '  - id: A', '    when: alert.alert_def_id ==', '    approve: {groups: [tier1], hours: "6-22"}', '  - id: B', '    when: "true"', '    escalate: x', '    deny: y', '    colour: red', ''].join('\n'),
    );
    const load = loadPolicy(file);
    expect(load.ok).toBe(false);
    if (load.ok) return;
    const text = load.problems.map((p) => `${p.line}:${p.column} ${p.message} | ${p.fix}`).join('\n');
    expect(text).toMatch(/^2:\d+ timezone: not an IANA time zone/m);
    expect(text).toMatch(/^6:\d+ classes\.0\.approve\.hours: hours are "HH:MM-HH:MM"/m);
    expect(text).toMatch(/colour/);
  });

  it('a CEL syntax error is placed in its expression', () => {
    const load = loadPolicy(policyFile(['version: 1', 'classes:', '  - id: A', '    when: alert.alert_def_id == == "x"', '    escalate: no', ''].join('\n')));
    expect(load.ok).toBe(false);
    if (load.ok) return;
    expect(load.problems[0]).toMatchObject({ line: 4, message: expect.stringMatching(/^classes\.0\.when: /), fix: expect.stringMatching(/CEL expression/) });
    expect(load.problems[0]!.column).toBeGreaterThan(10);
  });

  it('a freeze or change record that ends before it starts, and a missing records file, are refused', () => {
    const load = loadPolicy(policyFile(['version: 1', 'freezes:', '  - {name: f, from: "2026-12-18T00:00", to: "2026-12-01T00:00"}', 'change_records: nowhere.yaml', ''].join('\n')));
    expect(load.ok).toBe(false);
    if (load.ok) return;
    expect(load.problems.map((p) => p.message).join('\n')).toMatch(/"f" ends before it starts[\s\S]*cannot read .*nowhere\.yaml/);
  });
});

describe('times in the policy zone', () => {
  it('read a local time in the zone, across a DST change, and hours that cross midnight', () => {
    expect(new Date(instantOf('2026-12-18T00:00', 'Europe/Amsterdam')).toISOString()).toBe('2026-12-17T23:00:00.000Z');
    expect(new Date(instantOf('2026-07-01T00:00', 'Europe/Amsterdam')).toISOString()).toBe('2026-06-30T22:00:00.000Z');
    expect(new Date(instantOf('2026-12-18T00:00Z', 'Europe/Amsterdam')).toISOString()).toBe('2026-12-18T00:00:00.000Z');
    const night = loadPolicy(policyFile(['version: 1', 'timezone: Europe/Amsterdam', 'classes:', '  - id: N', '    when: "true"', '    approve: {groups: [t], hours: "22:00-06:00"}', ''].join('\n')));
    if (!night.ok) throw new Error('policy did not load');
    expect(evaluatePolicy(night.loaded, bgp('2026-11-28T21:30:00Z'))).toMatchObject({ kind: 'approve' }); // 22:30 in Amsterdam
    expect(evaluatePolicy(night.loaded, bgp('2026-11-28T04:59:00Z'))).toMatchObject({ kind: 'approve' }); // 05:59
    expect(evaluatePolicy(night.loaded, bgp('2026-11-28T05:00:00Z'))).toMatchObject({ kind: 'escalate' }); // 06:00
  });
});
