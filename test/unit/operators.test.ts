import { describe, expect, it } from 'vitest';
import { createOperatorDirectory, newToken, OperatorsError, parseOperators } from '../../src/core/operators/operators';

const error = (text: string) => {
  try {
    parseOperators(text, 'ops.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(OperatorsError);
    return (e as Error).message;
  }
  throw new Error('expected OperatorsError');
};

describe('operators file', () => {
  it('finds the person by their token, and nobody by any other', () => {
    const a = newToken();
    const ops = parseOperators(`operators:\n  - {name: Ana, email: ana@example.net, role: approver, token_sha256: ${a.sha256}}\n`, 'ops.yaml');
    const dir = createOperatorDirectory(ops);
    expect(dir.byToken(a.token)?.email).toBe('ana@example.net');
    expect(dir.byToken(newToken().token)).toBeUndefined();
    expect(dir.byToken(a.sha256)).toBeUndefined();
  });

  it('refuses a token written in clear, unknown roles, duplicates, with one line per problem', () => {
    expect(error('operators:\n  - {name: Ana, email: ana@example.net, role: admin, token_sha256: frp_secret}\n')).toBe(
      'ops.yaml:\noperators[0].role: approver or viewer\noperators[0].token_sha256: the SHA-256 of the token, 64 lowercase hex characters (npm run operators -- token prints one); never the token itself',
    );
    const t = newToken().sha256;
    expect(error(`operators:\n  - {name: A, email: a@x.net, role: approver, token_sha256: ${t}}\n  - {name: B, email: b@x.net, role: viewer, token_sha256: ${t}}\n`)).toBe('ops.yaml: b@x.net and a@x.net share a token: each person needs their own');
  });
});
