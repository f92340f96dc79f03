import { describe, expect, it } from 'vitest';
import { readTypedAnswer } from '../../../src/core/approvals/typed-decision';
import { findUnstorableJson, findUnstorableText, storableText } from '../../../src/core/incidents/storable-text';

describe('text no store can hold', () => {
  it('is found in values and keys, at any depth, by its path', () => {
    expect(findUnstorableText({ a: [{ b: 'ok' }, { c: 'x\u0000' }] })).toEqual({ path: 'a.1.c', message: expect.stringMatching(/NUL character/) });
    expect(findUnstorableText({ a: { ['k\ud800']: 1 } })).toEqual({ path: 'a', message: expect.stringMatching(/key "k\\ud800" holds a lone UTF-16 surrogate/) });
    expect(findUnstorableText('\udfff')?.path).toBe('(body)');
    // A surrogate pair is one character (an emoji): storable.
    expect(findUnstorableText({ a: '\ud83d\ude00', ['\ud83d\ude00']: 'x' })).toBeUndefined();
  });

  it('is looked for in a JSON body only when its text has an escape that could make it', () => {
    const body = { a: 'x\u0000' };
    expect(findUnstorableJson(JSON.stringify(body), body)?.path).toBe('a');
    // The text decides: an escaped backslash before "u0000" is no NUL.
    expect(findUnstorableJson('{"a":"\\\\u0000"}', { a: '\\u0000' })).toBeUndefined();
  });

  it("in a person's typed reason becomes U+FFFD: the decision stands", () => {
    expect(storableText('a\u0000b\ud800')).toBe('a\ufffdb\ufffd');
    expect(readTypedAnswer('DENIED: not now\u0000')).toEqual({ kind: 'decision', decision: 'DENIED', reason: 'not now\ufffd' });
  });
});
