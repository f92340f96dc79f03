import { describe, expect, it } from 'vitest';
import { createRedactor, kindOfStatus, kindOfTransportError, statusError, transportError } from '../../../src/adapters/agent/runtime-errors';

describe('runtime error mapping', () => {
  it('maps HTTP statuses to kinds the relay acts on', () => {
    expect([401, 403, 404, 408, 429, 500, 503, 400, 409].map(kindOfStatus)).toEqual([
      'auth', 'auth', 'not_found', 'timeout', 'server', 'server', 'server', 'client', 'client',
    ]);
  });

  it('maps transport failures: refused/reset → unreachable, undici timeouts → timeout', () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    expect(kindOfTransportError(err('ECONNREFUSED'))).toBe('unreachable');
    expect(kindOfTransportError(err('UND_ERR_SOCKET'))).toBe('unreachable');
    expect(kindOfTransportError(err('UND_ERR_HEADERS_TIMEOUT'))).toBe('timeout');
    expect(kindOfTransportError(err('UND_ERR_CONNECT_TIMEOUT'))).toBe('timeout');
    expect(kindOfTransportError(new AggregateError([err('ECONNREFUSED'), err('ECONNREFUSED')]))).toBe('unreachable');
  });

  it('uses the runtime error body as the reason', () => {
    const e = statusError('GET /session/x', 404, '{"name":"NotFoundError","data":{"message":"Session not found: x"}}', (t) => t);
    expect(e.kind).toBe('not_found');
    expect(e.status).toBe(404);
    expect(e.message).toContain('NotFoundError: Session not found: x');
    expect(e.retryable).toBe(false);
    expect(transportError('GET /x', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), (t) => t).retryable).toBe(true);
  });

  it('never lets a secret through, even when the runtime echoes it', () => {
    const password = 's3cret-Pa55';
    const basic = Buffer.from(`opencode:${password}`).toString('base64');
    const redact = createRedactor([password, basic]);
    const e = statusError('POST /session', 500, `{"data":{"message":"bad ${password} Basic ${basic}"}}`, redact);
    expect(e.message).not.toContain(password);
    expect(e.message).not.toContain(basic);
    expect(e.message).toContain('[redacted]');
  });
});
