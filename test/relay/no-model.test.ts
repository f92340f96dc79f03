import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { ad000002, relayForTest } from '../helpers/relay';
import { manualClock } from '../unit/incidents/in-memory-incidents';

let relay: Relay | undefined;
afterEach(async () => relay?.close());

const post = (r: Relay) =>
  r.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });

describe('no model configured on the runtime', () => {
  it('fails the alert at once with the fix, never creating a session, and says so on /health and /health/deep', async () => {
    const agent = createStubRuntime();
    agent.model = null;
    relay = await relayForTest({ agent });
    const res = await post(relay);
    expect(res.statusCode).toBe(202);
    const incident = relay.incidents.get(res.json().incident_id)!;
    expect(incident.state).toBe('failed');
    expect(incident.outcome?.summary).toBe('no model configured: set `model` in opencode.json or OPENCODE_CONFIG_CONTENT');
    expect(agent.sessions).toHaveLength(0);

    const health = (await relay.app.inject({ url: '/health' })).json();
    expect(health.warnings).toContainEqual(expect.stringMatching(/^no model configured/));
    const deep = await relay.app.inject({ url: '/health/deep' });
    expect(deep.statusCode).toBe(503);
    expect(deep.json().checks.model).toEqual({ ok: false, error: 'no model configured: set `model` in opencode.json or OPENCODE_CONFIG_CONTENT' });
  });

  // The runtime takes 50–200 ms to answer the question (measured on opencode 1.18 with runs going): beside
  // an alert's own calls it made that alert's delivery slower.
  it('asks the runtime about its model again only after the delivery that found the answer aging', async () => {
    const agent = createStubRuntime();
    const calls: string[] = [];
    for (const name of ['configuredModel', 'createSession', 'promptAsync'] as const) {
      const real = agent[name].bind(agent) as (...args: unknown[]) => Promise<unknown>;
      (agent as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => (calls.push(name), real(...args));
    }
    const clock = manualClock();
    relay = await relayForTest({ agent, clock });
    await post(relay);
    // The first answer is waited for: nothing is delivered on a runtime that may have no model.
    expect(calls).toEqual(['configuredModel', 'createSession', 'promptAsync']);
    calls.length = 0;
    clock.advance(3_000); // past half of the answer's 5 s
    const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002({ system: 'R2' })) });
    expect(relay.incidents.get(res.json().incident_id)?.state).toBe('running');
    await vi.waitFor(() => expect(calls).toEqual(['createSession', 'promptAsync', 'configuredModel']));
  });

  it('picks up a model configured later without a restart', async () => {
    const agent = createStubRuntime();
    agent.model = null;
    const clock = manualClock();
    relay = await relayForTest({ agent, clock });
    expect((await relay.app.inject({ url: '/health/deep' })).json().checks.model.ok).toBe(false);
    agent.model = 'anthropic/claude-sonnet-4-5';
    // The runtime's answer is kept a few seconds, then asked again.
    clock.advance(10_000);
    const deep = (await relay.app.inject({ url: '/health/deep' })).json();
    expect(deep.checks.model).toEqual({ ok: true, model: 'anthropic/claude-sonnet-4-5' });
    const res = await post(relay);
    expect(relay.incidents.get(res.json().incident_id)?.state).toBe('running');
  });
});
