import { describe, expect, it } from 'vitest';
import { APPLICATION_STATUSES, APPROVAL_STATUSES, GATE_EVENTS, TRANSITIONS, transition, type GateApproval } from '../../../src/core/approvals/lifecycle';

const phases = (['none', ...APPROVAL_STATUSES] as GateApproval[]).flatMap((approval) => APPLICATION_STATUSES.map((application) => ({ approval, application })));

describe('approval lifecycle table', () => {
  it.each(TRANSITIONS.map(([a, app, ev, toA, toApp]) => ({ a, app, ev, toA, toApp })))('$a/$app --$ev--> $toA/$toApp', ({ a, app, ev, toA, toApp }) => {
    expect(transition({ approval: a, application: app }, ev)).toEqual({ ok: true, next: { approval: toA, application: toApp } });
  });

  it('refuses every pair that is not in the table, with a reason', () => {
    const allowed = new Set(TRANSITIONS.map(([a, app, ev]) => `${a}/${app}/${ev}`));
    let refused = 0;
    for (const from of phases) {
      for (const event of GATE_EVENTS) {
        const result = transition(from, event);
        if (allowed.has(`${from.approval}/${from.application}/${event}`)) continue;
        expect(result.ok, `${from.approval}/${from.application}/${event}`).toBe(false);
        if (!result.ok) expect(result.reason.length).toBeGreaterThan(10);
        refused += 1;
      }
    }
    expect(refused).toBe(phases.length * GATE_EVENTS.length - TRANSITIONS.length);
  });

  it('only a human decision leads to approved, and only approved can be claimed', () => {
    const intoApproved = TRANSITIONS.filter(([a, , , toA]) => toA === 'approved' && a !== 'approved');
    expect(intoApproved.map(([, , ev]) => ev)).toEqual(['approve']);
    const claims = TRANSITIONS.filter(([, , ev]) => ev === 'claim');
    expect(claims.map(([a, app]) => `${a}/${app}`)).toEqual(['approved/none']);
  });

  it('says why a claim is refused in each state', () => {
    const why = (approval: GateApproval, application: (typeof APPLICATION_STATUSES)[number]) => {
      const r = transition({ approval, application }, 'claim');
      return r.ok ? 'allowed' : r.reason;
    };
    expect(why('none', 'none')).toMatch(/no approval yet/);
    expect(why('pending', 'none')).toMatch(/no approval yet/);
    expect(why('denied', 'none')).toMatch(/DENIED/);
    expect(why('expired', 'none')).toMatch(/EXPIRED/);
    expect(why('superseded', 'none')).toMatch(/superseded/);
    expect(why('approved', 'claimed')).toMatch(/being applied by another call/);
    expect(why('approved', 'applied')).toMatch(/already applied/);
    expect(why('approved', 'failed')).toMatch(/needs a new approval/);
  });

  it('a second decision is refused once the first is taken', () => {
    for (const decided of ['approved', 'denied', 'expired', 'superseded'] as const) {
      for (const event of ['approve', 'deny', 'expire'] as const) {
        const r = transition({ approval: decided, application: 'none' }, event);
        expect(r).toEqual({ ok: false, reason: `the approval is already ${decided}` });
      }
    }
  });

  it('a new request never replaces a pending approval or one being applied', () => {
    expect(transition({ approval: 'pending', application: 'none' }, 'request')).toMatchObject({ ok: false, reason: expect.stringMatching(/already pending/) });
    expect(transition({ approval: 'approved', application: 'claimed' }, 'request')).toMatchObject({ ok: false, reason: expect.stringMatching(/being applied/) });
  });
});
