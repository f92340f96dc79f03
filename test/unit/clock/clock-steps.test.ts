import { describe, expect, it } from 'vitest';
import { watchClockSteps, type ClockStep } from '../../../src/core/clock-steps';

describe('wall-clock steps', () => {
  it('reports a step beyond the tolerance, either way, and nothing for ordinary drift', () => {
    let wall = Date.parse('2026-11-28T10:00:00Z');
    let mono = 1_000;
    const seen: ClockStep[] = [];
    const watch = watchClockSteps({ wall: () => wall, monotonic: () => mono, toleranceMs: 5_000, everyMs: 3_600_000, onStep: (s) => seen.push(s) });
    try {
      wall += 1_000;
      mono += 1_000;
      wall += 300; // NTP slewing: well inside the tolerance
      expect(watch.check()).toBeUndefined();
      expect(watch.warnings()).toEqual([]);

      wall += 3_600_000 + 1_000;
      mono += 1_000;
      expect(watch.check()).toMatchObject({ step_ms: 3_600_000 });
      expect(watch.warnings()[0]).toMatch(/stepped forward by 3600 s at 2026-11-28T11:00:02/);

      wall -= 120_000;
      expect(watch.check()).toMatchObject({ step_ms: -120_000 });
      expect(watch.warnings()[0]).toMatch(/stepped back by 120 s/);
      expect(seen.map((s) => s.step_ms)).toEqual([3_600_000, -120_000]);
    } finally {
      watch.stop();
    }
  });

  it('stops showing a step once it is old', () => {
    let wall = 0;
    let mono = 0;
    const watch = watchClockSteps({ wall: () => wall, monotonic: () => mono, showForMs: 60_000, everyMs: 3_600_000 });
    try {
      wall += 10_000_000;
      watch.check();
      expect(watch.warnings()).toHaveLength(1);
      mono += 61_000;
      wall += 61_000;
      expect(watch.warnings()).toEqual([]);
    } finally {
      watch.stop();
    }
  });
});
