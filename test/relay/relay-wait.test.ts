import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock';
import type { Relay } from '../../src/relay/create-relay';
import { WAIT_MAX_S } from '../../src/adapters/agent-tools/relay-tools';
import { connectMcp } from '../helpers/mcp-client';
import { ad000002, relayForTest } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { manualClock } from '../unit/incidents/in-memory-incidents';

/**
 * `relay_wait`: the RAW waits the agents used to make with a shell. The relay holds the call for
 * the given seconds on its own clock (moved here by the test), bounded, and only for a live incident.
 */
let relay: Relay | undefined;
let mcp: Awaited<ReturnType<typeof connectMcp>> | undefined;
afterEach(async () => {
  await mcp?.close();
  await relay?.close();
  relay = undefined;
  mcp = undefined;
});

async function setUp() {
  const clock = manualClock();
  // Tells the test when the relay has set a timer of a given length (the wait has begun).
  const waiters: { ms: number; resolve: () => void }[] = [];
  const watched: Clock = {
    now: clock.now,
    setTimeout(fn, ms) {
      for (const w of waiters.filter((x) => x.ms === ms)) w.resolve();
      return clock.setTimeout(fn, ms);
    },
  };
  const timerOf = (ms: number) => new Promise<void>((resolve) => waiters.push({ ms, resolve }));
  relay = await relayForTest({ agent: createStubRuntime(), env: { RELAY_TOOLS_TOKEN: 'tools-secret' }, clock: watched });
  const url = await relay.listen({ port: 0, host: '127.0.0.1' });
  mcp = await connectMcp(`${url}/mcp`, 'tools-secret');
  const res = await relay.app.inject({ method: 'POST', url: '/fault-alert', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(ad000002()) });
  return { clock, timerOf, incidentId: res.json().incident_id as string };
}

describe('the relay wait tool', () => {
  it('answers only once the relay clock has passed the seconds asked for', async () => {
    const { clock, timerOf, incidentId } = await setUp();
    const started = timerOf(12_000);
    let answered = false;
    const call = mcp!.call('wait', { incident_id: incidentId, seconds: 12 }).finally(() => (answered = true));
    await started;
    clock.advance(11_999);
    expect(answered).toBe(false);
    clock.advance(1);
    expect((await call).json).toEqual({ waited_s: 12, state: 'running' });
  });

  it(`refuses more than ${WAIT_MAX_S} s a call, negative waits, unknown incidents and ended ones`, async () => {
    const { incidentId } = await setUp();
    expect(await mcp!.call('wait', { incident_id: incidentId, seconds: WAIT_MAX_S + 1 })).toMatchObject({ isError: true });
    expect(await mcp!.call('wait', { incident_id: incidentId, seconds: -1 })).toMatchObject({ isError: true });
    expect(await mcp!.call('wait', { incident_id: 'INC-20000101T000000Z', seconds: 1 })).toMatchObject({ isError: true, text: expect.stringMatching(/unknown incident/) });
    await mcp!.call('report_outcome', { incident_id: incidentId, outcome: 'escalated', summary: 'planned work' });
    expect(await mcp!.call('wait', { incident_id: incidentId, seconds: 1 })).toMatchObject({ isError: true, text: expect.stringMatching(/already ended as escalated; there is nothing to wait for/) });
  });
});
