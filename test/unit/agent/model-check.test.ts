import { describe, expect, it } from 'vitest';
import { createModelCheck, NO_MODEL_MESSAGE } from '../../../src/core/delivery/model-check';
import type { AgentRuntime } from '../../../src/core/agent-runtime';
import type { Clock } from '../../../src/core/clock';

/** A runtime whose config answers only when the test says, and a clock the test moves. */
function setup() {
  let now = 0;
  const clock: Clock = { now: () => new Date(now), setTimeout: () => ({ cancel() {} }) };
  const asked: ((model: string | null) => void)[] = [];
  const agent = { configuredModel: () => new Promise<string | null>((resolve) => asked.push(resolve)) } as unknown as AgentRuntime;
  const check = createModelCheck({ agent, agentName: 'network-troubleshooter', clock, ttlMs: 5_000 });
  const answer = async (model: string | null) => {
    asked.shift()?.(model);
    await new Promise((r) => setImmediate(r));
  };
  return { check, asked, answer, at: (ms: number) => (now = ms) };
}

describe('the model check on a delivery', () => {
  it('waits for the first answer, then acts on it without asking until half the TTL', async () => {
    const { check, asked, answer, at } = setup();
    const first = check.refresh();
    expect(asked).toHaveLength(1);
    await answer('scripted/brain');
    expect(await first).toEqual({ state: 'configured', model: 'scripted/brain' });
    at(2_000);
    expect(await check.refresh()).toEqual({ state: 'configured', model: 'scripted/brain' });
    expect(asked).toHaveLength(0);
  });

  it('past half the TTL answers at once and asks the runtime behind the delivery', async () => {
    const { check, asked, answer, at } = setup();
    const first = check.refresh();
    await answer('scripted/brain');
    await first;
    at(3_000);
    // The runtime has not answered the new question: the delivery does not wait for it.
    expect(await check.refresh()).toEqual({ state: 'configured', model: 'scripted/brain' });
    expect(asked).toHaveLength(1);
    // A second delivery meanwhile asks nothing more.
    expect(await check.refresh()).toEqual({ state: 'configured', model: 'scripted/brain' });
    expect(asked).toHaveLength(1);
    await answer(null);
    expect(check.current()).toEqual({ state: 'missing', message: NO_MODEL_MESSAGE });
  });

  it('past half the TTL, a delivery that passes its end has the question asked only once it is over', async () => {
    const { check, asked, answer, at } = setup();
    const first = check.refresh();
    await answer('scripted/brain');
    await first;
    at(3_000);
    let over = () => {};
    const end = new Promise<void>((resolve) => (over = resolve));
    expect(await check.refresh({ after: end })).toEqual({ state: 'configured', model: 'scripted/brain' });
    // Nor does a second delivery meanwhile ask beside it.
    expect(await check.refresh({ after: new Promise(() => {}) })).toEqual({ state: 'configured', model: 'scripted/brain' });
    expect(asked).toHaveLength(0);
    over();
    await new Promise((r) => setImmediate(r));
    expect(asked).toHaveLength(1);
  });

  it('never acts on an answer older than the TTL: the delivery waits for a new one', async () => {
    const { check, answer, at } = setup();
    const first = check.refresh();
    await answer('scripted/brain');
    await first;
    at(5_000);
    const fresh = check.refresh();
    await answer(null);
    expect(await fresh).toEqual({ state: 'missing', message: NO_MODEL_MESSAGE });
  });
});
