import { describe, expect, it } from 'vitest';
import { jitteredBackoff, wait } from '../../../src/core/backoff';
import type { Clock } from '../../../src/core/clock';

describe('jittered backoff', () => {
  it('doubles from the base up to the cap', () => {
    const noJitter = jitteredBackoff({ baseMs: 100, maxMs: 1_000, jitter: 0 });
    expect([0, 1, 2, 3, 4, 10, 1000].map(noJitter)).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000]);
  });

  it('spreads delays within the jitter share, never above the ceiling', () => {
    const low = jitteredBackoff({ baseMs: 1_000, jitter: 0.5, random: () => 0 });
    const high = jitteredBackoff({ baseMs: 1_000, jitter: 0.5, random: () => 0.999999 });
    expect(low(0)).toBe(500);
    expect(high(0)).toBe(1_000);
    expect(low(2)).toBe(2_000);
  });
});

describe('wait', () => {
  const manual = () => {
    const pending = new Map<number, () => void>();
    let seq = 0;
    const clock: Clock = {
      now: () => new Date(0),
      setTimeout: (fn) => {
        const id = ++seq;
        pending.set(id, fn);
        return { cancel: () => void pending.delete(id) };
      },
    };
    return { clock, pending, fire: () => [...pending.values()].forEach((fn) => fn()) };
  };

  it('resolves when the clock fires', async () => {
    const { clock, fire } = manual();
    let done = false;
    const p = wait(5_000, clock).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    fire();
    await p;
    expect(done).toBe(true);
  });

  it('resolves at once on abort and cancels its timer', async () => {
    const { clock, pending } = manual();
    const ac = new AbortController();
    const p = wait(60_000, clock, ac.signal);
    expect(pending.size).toBe(1);
    ac.abort();
    await p;
    expect(pending.size).toBe(0);
  });
});
