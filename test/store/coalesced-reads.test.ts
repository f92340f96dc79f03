import { describe, expect, it } from 'vitest';
import type { Incident } from '../../src/core/incidents/model';
import { coalescedReads } from '../../src/adapters/store-pg/coalesced-reads';
import { incident } from './store-contract';

/** A read the test lets finish: what it was asked for, and its answer on release. */
function reads() {
  const asked: string[][] = [];
  const pending: (() => void)[] = [];
  const read = (ids: readonly string[]) =>
    new Promise<{ incident: Incident }[]>((resolve) => {
      asked.push([...ids].sort());
      pending.push(() => resolve(ids.map((id) => ({ incident: { ...incident(1), incident_id: id } }))));
    });
  return { asked, read, release: () => pending.shift()?.() };
}

describe('reads of other relays\' changes', () => {
  it('merges the requests made while a read runs into one next read, and tells each change once', async () => {
    const r = reads();
    const refresh = coalescedReads(r.read);
    const first = refresh(['A']);
    // Made while A is read: answered by one read that starts after it.
    const second = refresh(['B', 'C']);
    const third = refresh(['C', 'D']);
    expect(r.asked).toEqual([['A']]);
    r.release();
    expect((await first).map((c) => c.incident.incident_id)).toEqual(['A']);
    await Promise.resolve();
    expect(r.asked).toEqual([['A'], ['B', 'C', 'D']]);
    r.release();
    // C goes to the first request that named it only: the bus hears of it once.
    expect((await second).map((c) => c.incident.incident_id)).toEqual(['B', 'C']);
    expect((await third).map((c) => c.incident.incident_id)).toEqual(['D']);
  });

  it('fails every request of a read that fails, and reads again for the next', async () => {
    let fail = true;
    const refresh = coalescedReads(async (ids) => {
      if (fail) throw new Error('database away');
      return ids.map((id) => ({ incident: { ...incident(1), incident_id: id } }));
    });
    await expect(refresh(['A'])).rejects.toThrow('database away');
    fail = false;
    expect((await refresh(['A'])).map((c) => c.incident.incident_id)).toEqual(['A']);
  });
});
