import { afterEach, describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { captureLogger } from '../helpers/capture-logger';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';

let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const SECRET = 'ui-secret-0123456789';

describe('browser access to the read-only UI with WEBHOOK_SECRET set', () => {
  it('trades ?token= for a cookie that opens /sessions and /health/deep, never /fault-alert; the token is not logged', async () => {
    const log = captureLogger();
    relay = await relayForTest({ agent: createStubRuntime(), env: { WEBHOOK_SECRET: SECRET }, logger: log.logger });

    const login = await relay.app.inject({ url: `/ui?token=${SECRET}` });
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe('/ui/');
    const cookie = String(login.headers['set-cookie']).split(';')[0] as string;
    expect(cookie).toMatch(/^fault_relay_ui=v2\./);
    expect(cookie).not.toContain(SECRET);

    expect((await relay.app.inject({ url: '/sessions', headers: { cookie } })).statusCode).toBe(200);
    expect((await relay.app.inject({ url: '/health/deep', headers: { cookie } })).statusCode).toBe(200);
    const alert = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { cookie, 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
    expect(alert.statusCode).toBe(401);
    expect((await relay.app.inject({ url: '/ui?token=wrong' })).statusCode).toBe(401);
    expect((await relay.app.inject({ url: '/sessions', headers: { cookie: 'fault_relay_ui=v1.99999999999999.forged' } })).statusCode).toBe(401);

    expect(log.text()).toContain('/ui?token=[redacted]');
    expect(log.text()).not.toContain(SECRET);
  });
});
