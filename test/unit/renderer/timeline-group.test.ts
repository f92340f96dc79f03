import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../../src/core/incidents/model';
import { groupTimeline } from '../../../renderer/state/timeline-group';

const e = (at: number, type: string, message: string, extra: Record<string, unknown> = {}): TimelineEntry => ({ at: new Date(Date.UTC(2026, 10, 24, 10, 0, 0, at)).toISOString(), type, message, ...extra });

describe('timeline rows', () => {
  it('puts a tool call\'s start and end in one row with its duration, even when other lines come between', () => {
    const rows = groupTimeline([
      e(0, 'tool.running', 'exec_cli running', { call_id: 'c1' }),
      e(5, 'agent.text', 'Checking the neighbor'),
      e(250, 'tool.completed', 'exec_cli completed', { call_id: 'c1', output: 'BGP state = Idle' }),
      e(300, 'tool.running', 'read running', { call_id: 'c2' }),
    ]);
    expect(rows.map((r) => r.kind)).toEqual(['tool', 'entry', 'tool']);
    expect(rows[0]).toMatchObject({ kind: 'tool', end: { output: 'BGP state = Idle' }, durationMs: 250 });
    expect(rows[2]).toMatchObject({ kind: 'tool', start: { call_id: 'c2' } });
    expect(rows[2]).not.toHaveProperty('end');
  });

  it('shows a run of identical idle lines once, with how many there were', () => {
    const rows = groupTimeline([e(0, 'session.idle', 'root idle'), e(1, 'session.idle', 'root idle'), e(2, 'session.idle', 'root idle'), e(3, 'agent.text', 'x'), e(4, 'session.idle', 'root idle')]);
    expect(rows.map((r) => (r.kind === 'entry' ? `${r.entry.type}×${r.repeats}` : 'tool'))).toEqual(['session.idle×3', 'agent.text×1', 'session.idle×1']);
  });
});
