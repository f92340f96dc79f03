import { describe, expect, it } from 'vitest';
import { errorBody, errorOf, errorOfText, errorText } from '../../../src/core/error-body';

describe('the one error body', () => {
  it('is read back the same way by every reader, keeping what an answer carries beside it', () => {
    const body = { ...errorBody('already_decided', 'Already APPROVED by alice'), decided: { by: 'alice' } };
    expect(errorOf(body)).toEqual({ code: 'already_decided', message: 'Already APPROVED by alice' });
    expect(errorOfText(JSON.stringify(body))?.code).toBe('already_decided');
    expect(errorOf({ error: { code: 'not_allowed_by_policy', message: 'No', details: { rule: 'core', groups: ['neteng'] } } })?.details).toEqual({ rule: 'core', groups: ['neteng'] });
  });

  it('is not found in what is not one: a proxy page, a bare message, nothing', () => {
    expect(errorOfText('<html>502 Bad Gateway</html>')).toBeUndefined();
    expect(errorOf({ error: { message: 'no code' } })).toBeUndefined();
    expect(errorOf(undefined)).toBeUndefined();
  });

  it('turns anything thrown or answered into words for a person', () => {
    expect(errorText(new Error('socket hang up'))).toBe('socket hang up');
    expect(errorText('refused')).toBe('refused');
    expect(errorText(errorBody('not_found', 'No incident INC-1'))).toBe('No incident INC-1');
    expect(errorText(42)).toBe('42');
  });
});
