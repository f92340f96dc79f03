import { describe, expect, it } from 'vitest';
import { createRunQueue } from '../../../src/core/delivery/run-queue';
import type { Incident } from '../../../src/core/incidents/model';

const at = (s: number) => `2026-11-21T10:00:${String(s).padStart(2, '0')}.000Z`;
const note = (q: ReturnType<typeof createRunQueue>, incident_id: string, state: Incident['state'], created: number) => q.note({ incident_id, state, created_at: at(created) });

describe('the dispatcher queue', () => {
  it('gives queued incidents oldest first, ties by id, whatever order they were heard of in (another relay’s arrive late)', () => {
    const q = createRunQueue();
    note(q, 'INC-c', 'queued', 3);
    note(q, 'INC-a', 'queued', 1);
    note(q, 'INC-b2', 'queued', 2);
    note(q, 'INC-b1', 'queued', 2);
    expect([...q.queued()]).toEqual(['INC-a', 'INC-b1', 'INC-b2', 'INC-c']);
    expect(q.queuedCount()).toBe(4);
  });

  it('counts running, awaiting and decided runs as holding a slot, and lets go of them when they end', () => {
    const q = createRunQueue();
    note(q, 'INC-1', 'queued', 1);
    note(q, 'INC-1', 'running', 1);
    note(q, 'INC-2', 'awaiting_approval', 2);
    note(q, 'INC-3', 'approved', 3);
    expect([...q.active()].sort()).toEqual(['INC-1', 'INC-2', 'INC-3']);
    expect([...q.queued()]).toEqual([]);
    note(q, 'INC-1', 'resolved', 1);
    note(q, 'INC-2', 'escalated', 2);
    expect([...q.active()]).toEqual(['INC-3']);
  });

  it('never gives an incident twice, also one that left the queue and came back, across many that passed', () => {
    const q = createRunQueue();
    for (let i = 0; i < 500; i++) note(q, `INC-${String(i).padStart(3, '0')}`, 'queued', 1);
    for (let i = 0; i < 499; i++) note(q, `INC-${String(i).padStart(3, '0')}`, 'running', 1);
    note(q, 'INC-007', 'queued', 1);
    expect([...q.queued()]).toEqual(['INC-007', 'INC-499']);
    expect(q.queuedCount()).toBe(2);
  });
});
