import { describe, expect, it } from 'vitest';
import { createGateMove } from '../../../src/core/approvals/gate-move';
import { pendingRequest } from '../../../src/core/approvals/pending-request';
import { createPolicyRecheck } from '../../../src/core/approvals/policy-recheck';
import type { Verdict } from '../../../src/core/policy/schema';
import { silent } from '../../helpers/relay';
import { inMemoryIncidents, manualClock } from '../incidents/in-memory-incidents';
import { entries } from '../../../src/core/events/timeline-entries';

const LINES = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];

/** A running incident whose request was approved under `rule`, and the re-check over a policy that now says `now`. */
function approvedUnder(rule: string, now: Verdict) {
  const clock = manualClock('2026-12-18T00:01:00.000Z');
  const { incidents, running } = inMemoryIncidents(clock);
  const incident = running('ses-1');
  const id = incident.incident_id;
  incidents.record(id, entries.policyVerdict, `Policy ${rule}`, { rule, groups: [], count: 1, policy_sha256: 'sha', lines_sha256: 'sha' });
  const request = pendingRequest(incident, { incident_id: id, summary: 's', device: 'R1', commands: LINES }, clock.now(), new Date(clock.now().getTime() + 60_000), ['desktop']);
  incidents.update(id, () => ({ approval_request: { ...request, status: 'approved' } }));
  const told: string[] = [];
  const recheck = createPolicyRecheck({
    policy: { verdict: () => now, current: () => ({ file: 'policy.yaml', sha256: 'a'.repeat(64) }) },
    incidents,
    move: createGateMove(incidents),
    clock,
    logger: silent,
    tellRoom: (_id, text) => told.push(text),
  });
  return { incidents, id, told, recheck: () => recheck(incidents.get(id)!) };
}

describe('the policy re-checked at apply time', () => {
  it('the same rule still allows it: nothing stops the change, and the check is on the timeline', () => {
    const t = approvedUnder('SC-BGP-01', { kind: 'approve', rule: 'SC-BGP-01', groups: ['tier1'], count: 1, reason: '1 approval from tier1' });
    expect(t.recheck()).toBeUndefined();
    expect(t.incidents.get(t.id)).toMatchObject({ state: 'running', approval_request: { status: 'approved' } });
    expect(t.incidents.timeline(t.id).filter((e) => e.type === 'policy.rechecked')).toEqual([expect.objectContaining({ rule: 'SC-BGP-01', verdict: 'approve' })]);
  });

  it("approved by one person before a freeze whose emergency path needs two others: not applied, because the approval was not given under the freeze's rule", () => {
    const rule = 'SC-BGP-01 in freeze year-end';
    const t = approvedUnder('SC-BGP-01', { kind: 'approve', rule, groups: ['change-manager', 'tier2'], count: 2, reason: '2 approvals from change-manager, tier2 (freeze year-end)' });
    const why = t.recheck();
    expect(why).toMatch(/the approval was given under SC-BGP-01, and now SC-BGP-01 in freeze year-end applies, which needs 2 approvals from change-manager, tier2/);
    expect(t.incidents.get(t.id)).toMatchObject({ state: 'escalated', approval_request: { status: 'expired' }, outcome: { kind: 'escalated' } });
    expect(t.incidents.timeline(t.id).filter((e) => e.type === 'policy.rechecked')).toEqual([expect.objectContaining({ rule, verdict: 'escalate', approved_under: 'SC-BGP-01' })]);
    expect(t.told.join()).toContain(rule);
  });

  it('denied by the policy now: the rule and its reason, and the run is escalated', () => {
    const t = approvedUnder('SC-BGP-01', { kind: 'deny', rule: 'default', reason: 'no class of the policy matches this change' });
    expect(t.recheck()).toMatch(/\(default\): no class of the policy matches this change\. The approval expired and nothing was sent to R1\./);
    expect(t.incidents.timeline(t.id).find((e) => e.type === 'policy.rechecked')).toMatchObject({ rule: 'default', verdict: 'deny' });
    expect(t.incidents.get(t.id)!.state).toBe('escalated');
  });
});
