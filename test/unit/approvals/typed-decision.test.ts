import { describe, expect, it } from 'vitest';
import { readTypedAnswer } from '../../../src/core/approvals/typed-decision';
import { newRequestId, REQUEST_ID_PATTERN } from '../../../src/core/approvals/request-id';

describe('a typed decision in the terminal', () => {
  it('is exactly APPROVED or DENIED, optionally with ": reason" or " - reason"', () => {
    expect(readTypedAnswer('APPROVED')).toEqual({ kind: 'decision', decision: 'APPROVED' });
    expect(readTypedAnswer('  DENIED  ')).toEqual({ kind: 'decision', decision: 'DENIED' });
    expect(readTypedAnswer('DENIED: not in the change window')).toEqual({ kind: 'decision', decision: 'DENIED', reason: 'not in the change window' });
    expect(readTypedAnswer('APPROVED - CHG-1234')).toEqual({ kind: 'decision', decision: 'APPROVED', reason: 'CHG-1234' });
  });

  it('anything else is not a decision, and one that looks like an answer is said to be none', () => {
    for (const text of ['approved? why does it shut 10.0.0.9', 'approved', 'Approved', 'APPROVED please', 'APPROVED-ish', 'I think this should be APPROVED', 'APPROVED\nDENIED', 'yes', 'lgtm', 'DENIED:']) {
      expect(readTypedAnswer(text).kind, text).toBe('not_a_decision');
    }
    expect(readTypedAnswer('what does step 3 check?')).toEqual({ kind: 'other' });
  });
});

describe('approval request ids', () => {
  it('are short, readable and not guessable from each other', () => {
    const ids = new Set(Array.from({ length: 200 }, newRequestId));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(REQUEST_ID_PATTERN);
  });
});
