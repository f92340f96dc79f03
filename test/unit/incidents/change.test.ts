import { describe, expect, it } from 'vitest';
import { CHANGE_EVENTS, CHANGE_STATES, changeOutcomeText, endingOfReason, nextChangeState } from '../../../src/core/incidents/change';

describe('a provisional change\'s states', () => {
  it('moves only from pending, once: every (state, event) pair', () => {
    const allowed = new Map([
      ['pending/confirm', 'confirmed'],
      ['pending/rolled_back', 'rolled_back'],
      ['pending/rollback_failed', 'rollback_failed'],
    ]);
    for (const state of CHANGE_STATES) {
      for (const event of CHANGE_EVENTS) {
        const next = nextChangeState(state, event);
        const want = allowed.get(`${state}/${event}`);
        if (want) expect(next).toEqual({ ok: true, state: want });
        else expect(next).toEqual({ ok: false, reason: `the change is already ${state.replace('_', ' ')}` });
      }
    }
  });

  it('says how it ended in the words the timeline, the tray and the cards use', () => {
    const base = { confirm_within_s: 120, person: null, detail: null };
    expect(changeOutcomeText({ ...base, state: 'confirmed', ended_by: 'post_check' })).toBe('confirmed by post-check');
    expect(changeOutcomeText({ ...base, state: 'confirmed', ended_by: 'person', person: 'ana@example.net' })).toBe('confirmed by ana@example.net');
    expect(changeOutcomeText({ ...base, state: 'rolled_back', ended_by: 'post_check_failed' })).toBe('rolled back: post-check failed');
    expect(changeOutcomeText({ ...base, state: 'rolled_back', ended_by: 'deadline' })).toBe('rolled back: not confirmed within 120 s');
    expect(changeOutcomeText({ ...base, state: 'rollback_failed', ended_by: 'deadline', detail: 'neighbor 10.0.0.2 shutdown still missing' })).toMatch(/^ROLLBACK FAILED \(not confirmed within 120 s\): check the device: neighbor/);
  });

  it('reads the device tool server\'s rollback reasons', () => {
    expect(endingOfReason('deadline')).toBe('deadline');
    expect(endingOfReason('server_restart')).toBe('server_restart');
    expect(endingOfReason('post-check failed: revalidate_established')).toBe('post_check_failed');
    expect(endingOfReason(undefined)).toBe('requested');
  });
});
