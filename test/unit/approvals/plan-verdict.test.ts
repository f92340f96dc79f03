import { describe, expect, it } from 'vitest';
import { requestVerdict } from '../../../src/core/approvals/plan-verdict';
import type { Incident } from '../../../src/core/incidents/model';
import type { Verdict } from '../../../src/core/policy/schema';

/** A plan's policy verdict is the strictest of its devices' own: the rule that decided it is named. */
const byDevice: Record<string, Verdict> = {
  R1: { kind: 'approve', rule: 'edge', groups: ['neteng'], count: 1, reason: '1 approval from neteng' },
  R2: { kind: 'approve', rule: 'core', groups: ['neteng'], count: 2, reason: '2 approvals from neteng' },
  R3: { kind: 'escalate', rule: 'core-freeze', reason: 'frozen' },
};
const policy = { verdict: (incident: Incident) => byDevice[incident.device_hostname]! };
const incident = { device_hostname: 'R1' } as Incident;
const plan = (...devices: string[]) => ({ incident_id: 'i', summary: 's', device: 'R1', commands: [], plan: devices.map((device) => ({ device, commands: ['x'], rollback: [], preview: null })) });

describe('the policy over a plan', () => {
  it('asks for the most approvals any of its devices needs', () => {
    expect(requestVerdict(policy, incident, plan('R1', 'R2'), new Date())).toMatchObject({ kind: 'approve', rule: 'core', count: 2 });
  });
  it('escalates the whole plan when one device is escalated', () => {
    expect(requestVerdict(policy, incident, plan('R1', 'R3', 'R2'), new Date())).toMatchObject({ kind: 'escalate', rule: 'core-freeze' });
  });
});
