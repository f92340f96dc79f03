import { describe, expect, it } from 'vitest';
import { pendingRequest } from '../../../src/core/approvals/pending-request';
import { policyDecide, type CountVote } from '../../../src/core/approvals/policy-decide';
import { policyNotice, requirementLine, standingWords } from '../../../src/core/approvals/standing';
import type { Actor, GateDecide } from '../../../src/core/approvals/types';
import { createVoteRecorder } from '../../../src/core/approvals/votes';
import type { ApprovalRequirement } from '../../../src/core/incidents/model';
import { staffingWarnings } from '../../../src/core/policy/staffing';
import { parseOperators, newToken } from '../../../src/core/operators/operators';
import { policySchema } from '../../../src/core/policy/schema';
import { inMemoryIncidents, manualClock } from '../incidents/in-memory-incidents';

const TWO: ApprovalRequirement = { rule: 'SC-BGP-01 in freeze year-end', groups: ['change-manager', 'tier2'], count: 2, reason: '2 approvals', policy_sha256: 'a'.repeat(64) };
const person = (email: string, groups: string[]): Actor => ({ id: email, person: { email, groups } });
const ana = person('ana@example.net', ['tier2']);
const carl = person('carl@example.net', ['change-manager']);
const tom = person('tom@example.net', ['tier1']);

/** One pending request under `requirement`, the counting in memory, and the gate's decide recorded. */
function setUp(requirement: ApprovalRequirement | null = TWO) {
  const clock = manualClock('2026-12-20T03:00:00.000Z');
  const { incidents, running } = inMemoryIncidents(clock);
  const id = running('ses-1').incident_id;
  incidents.transition(id, 'request_approval', () => ({
    approval_request: { ...pendingRequest(incidents.get(id)!, { incident_id: id, summary: 's', device: 'R1', commands: ['x'] }, clock.now(), new Date(clock.now().getTime() + 60_000), ['api']), requirement },
  }));
  const vote = createVoteRecorder({ incidents });
  const count: CountVote = async (incident, v) => vote(incident.incident_id, incident.approval_request!.request_id, v);
  const calls: string[] = [];
  const gate: GateDecide = ({ incident_id, decision, actor }) => {
    calls.push(`${decision} ${actor.id}`);
    return { status: 'accepted', incident: incidents.get(incident_id)!, approval: {} as never };
  };
  const policy = policyDecide({ decide: gate, count, incidents, clock });
  /** One person's decision on `channel`, as the steps in front of the gate take it. */
  const decide = (incident_id: string, decision: 'APPROVED' | 'DENIED', actor: Actor, channel: string) => policy({ incident_id, decision, actor, channel });
  return { id, incidents, decide, calls, clock };
}

describe('counting approvals toward a requirement', () => {
  it('only people in the rule\'s groups count: anyone else is refused naming the rule, and nothing reaches the gate', async () => {
    const t = setUp();
    expect(await t.decide(t.id, 'APPROVED', tom, 'api')).toMatchObject({ status: 'not_allowed_by_policy', rule: TWO.rule, groups: TWO.groups });
    expect(await t.decide(t.id, 'DENIED', tom, 'api')).toMatchObject({ status: 'not_allowed_by_policy' });
    // Someone OPERATORS_FILE does not list (a Webex allow-list e-mail, an unmapped OS user).
    expect(await t.decide(t.id, 'APPROVED', { id: 'stranger@example.org' }, 'webex')).toMatchObject({ status: 'not_allowed_by_policy' });
    expect(t.calls).toEqual([]);
  });

  it('the count is reached by distinct people only; the same person twice counts once', async () => {
    const t = setUp();
    expect(await t.decide(t.id, 'APPROVED', ana, 'api')).toMatchObject({ status: 'recorded', standing: { given: 1, needed: 2 } });
    expect(await t.decide(t.id, 'APPROVED', ana, 'slack')).toMatchObject({ status: 'already_approved_by_you', standing: { given: 1, needed: 2 } });
    expect(t.calls).toEqual([]);
    expect(await t.decide(t.id, 'APPROVED', carl, 'ui')).toMatchObject({ status: 'accepted', standing: { given: 2, needed: 2 } });
    expect(t.calls).toEqual(['APPROVED carl@example.net']);
    expect(t.incidents.timeline(t.id).filter((e) => e.type === 'approval.vote').map((e) => [e.by, e.channel, e.given, e.needed])).toEqual([
      ['ana@example.net', 'api', 1, 2],
      ['carl@example.net', 'ui', 2, 2],
    ]);
  });

  it('a DENIED from an eligible person goes to the gate at once, whatever was counted', async () => {
    const t = setUp();
    await t.decide(t.id, 'APPROVED', ana, 'api');
    await t.decide(t.id, 'DENIED', carl, 'api');
    expect(t.calls).toEqual(['DENIED carl@example.net']);
  });

  it('a request with no requirement, or one past its time, is the gate\'s to answer', async () => {
    const free = setUp(null);
    await free.decide(free.id, 'APPROVED', tom, 'api');
    expect(free.calls).toEqual(['APPROVED tom@example.net']);
    const late = setUp();
    late.clock.advance(61_000);
    await late.decide(late.id, 'APPROVED', ana, 'api');
    expect(late.calls).toEqual(['APPROVED ana@example.net']);
  });

  it('says the rule and the standing in the relay\'s words, with odd characters shown escaped', () => {
    expect(standingWords({ given: 1, needed: 2 })).toBe('recorded: 1 of 2');
    expect(standingWords({ given: 2, needed: 2 })).toBe('approved: 2 of 2');
    expect(requirementLine(TWO, [{ by: 'ana@example.com' }])).toBe('SC-BGP-01 in freeze year-end: 2 approvals from change-manager, tier2 — 1 given, by ana@example.com');
    expect(requirementLine({ ...TWO, rule: 'X\u202eY' }, [])).toContain('X\\u{202E}Y');
    expect(policyNotice({ status: 'not_allowed_by_policy', rule: 'SC-1', groups: ['tier2'] })).toMatch(/SC-1 counts approvals only from tier2/);
  });
});

describe('npm run policy -- check with OPERATORS_FILE', () => {
  const policy = policySchema.parse({ version: 1, classes: [{ id: 'SC-1', when: 'true', approve: { groups: ['tier2'], count: 1 }, in_freeze: { groups: ['change-manager', 'tier2'], count: 3 } }] });
  const ops = (yaml: string) => parseOperators(yaml.replace(/SHA/g, () => newToken().sha256), 'ops.yaml');

  it('warns of a group nobody is in and of a count the groups cannot reach; viewers do not count', () => {
    const listed = ops('operators:\n  - {name: Ana, email: ana@example.net, role: approver, groups: [tier2], token_sha256: SHA}\n  - {name: Vic, email: vic@example.net, role: viewer, groups: [change-manager], token_sha256: SHA}\n');
    const warnings = staffingWarnings(policy, listed);
    expect(warnings).toEqual([expect.stringMatching(/SC-1 in_freeze: no approver in OPERATORS_FILE is in group change-manager/), expect.stringMatching(/SC-1 in_freeze: needs 3 approvals from change-manager, tier2, and only 1 approver is/)]);
  });

  it('refuses a group name that is not a plain name', () => {
    expect(() => ops('operators:\n  - {name: Ana, email: ana@example.net, role: approver, groups: ["tier 2"], token_sha256: SHA}\n')).toThrow(/groups\[0\]: a group name such as tier2/);
  });
});
