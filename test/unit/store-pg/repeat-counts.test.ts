import { describe, expect, it } from 'vitest';
import type { Incident } from '../../../src/core/incidents/model';
import { createRepeatCounts } from '../../../src/adapters/store-pg/repeat-counts';

/**
 * Two relays fold the same fault's repeats side by side. Each shows the database's total plus what it
 * counted and has not committed; a total that arrives while its own commit is in flight may or may not
 * hold that commit, so neither reading may be double counted nor left behind once the commit answers.
 */
const incident = (occurrences: number) => ({ incident_id: 'INC-1', occurrences, last_seen: '2026-11-27T01:00:00.000Z' }) as Incident;

describe('team store: repeat counts', () => {
  it("does not count this relay's in-flight repeats twice when another relay's later total already holds them, and ends at that total", () => {
    let inFlight = new Map<string, number>();
    const counts = createRepeatCounts((id) => inFlight.get(id) ?? 0);
    const index = new Map([['INC-1', incident(60)]]);
    // 59 in the database, one repeat counted here and being committed (memory shows 60).
    counts.add('INC-1', 1);
    inFlight = new Map([['INC-1', 1]]);
    // The other relay committed after this one: its notice says 61, which holds this relay's repeat.
    counts.noticed(index, { 'INC-1': [61, '2026-11-27T01:00:05.000Z'] });
    expect(index.get('INC-1')?.occurrences).toBe(61);
    // This relay's commit answers with the total it left (60): the later 61 stands.
    counts.committed(new Map([['INC-1', 1]]));
    inFlight = new Map();
    expect(counts.settled('INC-1', 60)).toBe(61);
  });

  it("keeps this relay's uncommitted repeats on top of another relay's total, and never goes backwards on an older notice", () => {
    const counts = createRepeatCounts(() => 0);
    const index = new Map([['INC-1', incident(12)]]);
    counts.add('INC-1', 2);
    counts.noticed(index, { 'INC-1': [15, '2026-11-27T01:00:05.000Z'] });
    expect(index.get('INC-1')).toMatchObject({ occurrences: 17, last_seen: '2026-11-27T01:00:05.000Z' });
    const changes = counts.noticed(index, { 'INC-1': [13, '2026-11-27T01:00:01.000Z'] });
    expect(changes).toEqual([]);
    expect(index.get('INC-1')?.occurrences).toBe(17);
  });

  it('ignores a malformed notice instead of throwing inside the database listener', () => {
    const counts = createRepeatCounts(() => 0);
    const index = new Map([['INC-1', incident(3)]]);
    expect(counts.noticed(index, { 'INC-1': 'x', 'INC-2': [4, 'y'], 'INC-3': null })).toEqual([]);
    expect(index.get('INC-1')?.occurrences).toBe(3);
  });
});
