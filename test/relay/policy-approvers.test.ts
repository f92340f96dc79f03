import { afterEach, describe, expect, it } from 'vitest';
import { buildEvidenceBundle, verifyEvidenceBundle } from '../../src/core/incidents/evidence-bundle';
import { renderEvidenceMarkdown } from '../../src/core/incidents/evidence-markdown';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002, relayForTest } from '../helpers/relay';
import { people, policyPeopleEnv, TWO_PERSON_RULE, type Person } from '../helpers/policy-people';
import { createStubRuntime } from '../helpers/stub-runtime';
import { manualClock } from '../unit/incidents/in-memory-incidents';

const REPAIR = ['router bgp 65001', 'no neighbor 10.0.0.2 shutdown'];
const open: Relay[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

/** A relay with the two-person policy, pinned at noon on a day outside any freeze, with one request pending. */
async function pending(env: Record<string, string> = {}) {
  const relay = await relayForTest({ agent: createStubRuntime(), clock: manualClock('2026-11-28T12:00:00.000Z'), env: { ...policyPeopleEnv(), ...env }, extraChannels: () => ['desktop'] });
  open.push(relay);
  const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() })).json().incident_id as string;
  const asked = await relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut the neighbor', commands: REPAIR, rollback: [] });
  expect(asked).toMatchObject({ status: 'pending' });
  const request_id = relay.incidents.get(id)!.approval_request!.request_id;
  const decide = (who: Person, decision = 'APPROVED') =>
    relay.app.inject({ method: 'POST', url: `/incidents/${id}/decision`, headers: { authorization: `Bearer ${who.token}` }, payload: { request_id, decision } });
  const state = () => relay.incidents.get(id)!;
  return { relay, id, request_id, decide, state };
}

describe('approvals under the change policy: who counts, and how many', () => {
  it('a viewer gets 403, even one listed in the groups, and nothing changes', async () => {
    const t = await pending();
    const res = await t.decide(people.vic);
    expect(res.statusCode).toBe(403);
    expect(t.state()).toMatchObject({ state: 'awaiting_approval', approval: null });
    expect(t.state().approval_request?.votes ?? []).toEqual([]);
  });

  it('an approver outside the rule\'s groups gets 403 not_allowed_by_policy naming the rule; nothing changes', async () => {
    const t = await pending();
    for (const decision of ['APPROVED', 'DENIED']) {
      const res = await t.decide(people.tom, decision);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'not_allowed_by_policy', details: { rule: TWO_PERSON_RULE, groups: ['change-manager', 'tier2'] } } });
      expect(res.json().error.message).toMatch(new RegExp(`${TWO_PERSON_RULE} counts approvals only from change-manager, tier2`));
    }
    expect(t.state()).toMatchObject({ state: 'awaiting_approval', approval: null });
    expect(t.relay.incidents.timeline(t.id).map((e) => e.type)).not.toContain('approval.vote');
  });

  it('the same person twice counts once: 409 already_approved_by_you, still 1 of 2', async () => {
    const t = await pending();
    const first = await t.decide(people.ana);
    expect(first.statusCode).toBe(202);
    expect(first.json()).toMatchObject({ status: 'recorded', standing: 'recorded: 1 of 2', given: 1, needed: 2 });
    const again = await t.decide(people.ana);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: 'already_approved_by_you' }, standing: 'recorded: 1 of 2' });
    expect(t.state()).toMatchObject({ state: 'awaiting_approval', approval: null });
    expect(t.state().approval_request?.votes?.map((v) => v.by)).toEqual([people.ana.email]);
  });

  it('two distinct eligible people approve it: approved 2 of 2, each vote on the timeline, and the evidence names both', async () => {
    const t = await pending();
    expect((await t.decide(people.ana)).json()).toMatchObject({ standing: 'recorded: 1 of 2' });
    expect(t.state().state).toBe('awaiting_approval');
    const second = await t.decide(people.carl);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({ status: 'accepted', standing: 'approved: 2 of 2', by: people.carl.name });
    expect(t.state()).toMatchObject({ approval_request: { status: 'approved' }, approval: { decision: 'APPROVED' } });
    const votes = t.relay.incidents.timeline(t.id).filter((e) => e.type === 'approval.vote');
    expect(votes.map((v) => ({ by: v.by, channel: v.channel, given: v.given, needed: v.needed, request_id: v.request_id }))).toEqual([
      { by: people.ana.email, channel: 'api', given: 1, needed: 2, request_id: t.request_id },
      { by: people.carl.email, channel: 'api', given: 2, needed: 2, request_id: t.request_id },
    ]);
    const decided = t.relay.incidents.timeline(t.id).find((e) => e.type === 'approval.decided');
    expect(decided?.message).toContain(`approved: 2 of 2 (${TWO_PERSON_RULE}: 2 approvals from change-manager, tier2 — 2 given, by ${people.ana.email}, ${people.carl.email})`);
    const bundle = buildEvidenceBundle({ incident: t.state(), timeline: t.relay.incidents.timeline(t.id), now: new Date('2026-11-28T12:05:00Z') });
    expect(bundle.policy).toMatchObject({ verdict: 'approve', rule: TWO_PERSON_RULE, needed: 2, approvers: [{ by: people.ana.email, channel: 'api' }, { by: people.carl.email, channel: 'api' }] });
    expect(bundle.policy?.policy_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyEvidenceBundle(bundle)).toEqual([]);
    const markdown = renderEvidenceMarkdown(bundle);
    expect(markdown).toContain('## Change policy');
    expect(markdown).toMatch(new RegExp(`\\| ${people.carl.email.replace('.', '\\.')} \\| api \\| 2026-11-28T12:00:00\\.000Z \\|`));
  });

  it('a DENIED from an eligible person denies it, even after another approved', async () => {
    const t = await pending();
    await t.decide(people.ana);
    const res = await t.decide(people.carl, 'DENIED');
    expect(res.statusCode).toBe(200);
    expect(t.state()).toMatchObject({ approval: { decision: 'DENIED', by: people.carl.name } });
  });

  it('the terminal counts as the os_user\'s person, and not at all for an account nobody is mapped to', async () => {
    const t = await pending();
    const stranger = await t.relay.decide({ incident_id: t.id, request_id: t.request_id, decision: 'APPROVED', who: { id: 'root (terminal)', authenticated_by: 'terminal_secret' }, channel: 'terminal' });
    expect(stranger).toMatchObject({ status: 'not_allowed_by_policy', rule: TWO_PERSON_RULE });
    const ana = await t.relay.decide({ incident_id: t.id, request_id: t.request_id, decision: 'APPROVED', who: { id: 'ana (terminal)', authenticated_by: 'terminal_secret' }, channel: 'terminal' });
    expect(ana).toMatchObject({ status: 'recorded', standing: { given: 1, needed: 2 } });
    expect(t.state().approval_request?.votes).toEqual([expect.objectContaining({ by: people.ana.email, channel: 'terminal' })]);
    // The same person on another channel is still the same person.
    expect((await t.decide(people.ana)).statusCode).toBe(409);
  });

  it('every channel\'s question shows the rule and the progress', async () => {
    const t = await pending();
    await t.decide(people.ana);
    const { terminalQuestion } = await import('../../src/core/approvals/terminal-question');
    expect(terminalQuestion(t.state())).toContain(`Policy: ${TWO_PERSON_RULE}: 2 approvals from change-manager, tier2 — 1 given, by ${people.ana.email}`);
    const { progressLine } = await import('../../src/core/incidents/progress-line');
    expect(progressLine(t.state(), new Date('2026-11-28T12:01:00Z'))).toContain(`${TWO_PERSON_RULE}: 1 of 2 approvals from change-manager, tier2`);
  });
});

describe('unattended under the change policy', () => {
  it('APPROVAL_WHEN_UNATTENDED=approve never satisfies a class that names groups: escalated, nothing approved', async () => {
    const relay = await relayForTest({ agent: createStubRuntime(), clock: manualClock('2026-11-28T12:00:00.000Z'), env: { POLICY_FILE: policyPeopleEnv().POLICY_FILE!, APPROVAL_WHEN_UNATTENDED: 'approve' } });
    open.push(relay);
    const id = (await relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002() })).json().incident_id as string;
    const asked = await relay.approvals.request({ incident_id: id, device: 'R1', summary: 'unshut', commands: REPAIR, rollback: [] });
    expect(asked).toMatchObject({ status: 'escalated_by_policy', rule: TWO_PERSON_RULE });
    expect(relay.incidents.get(id)).toMatchObject({ state: 'escalated', approval: null });
  });
});
