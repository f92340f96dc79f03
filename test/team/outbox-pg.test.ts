import { describe, expect, it, onTestFinished } from 'vitest';
import { createOutbox, type StoredItem } from '../../src/adapters/outbox/outbox';
import { createPgOutboxStore } from '../../src/adapters/outbox/pg-store';
import { createPool, migrate } from '../../src/adapters/store-pg/database';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { silent } from '../helpers/relay';

/** The team's outbox on a real PostgreSQL: two relays on one table, each item sent by exactly one. */
describe.skipIf(noPostgres)('durable outbox on a team (PostgreSQL)', () => {
  const pg = usePostgres();

  async function teamPool() {
    const pool = createPool({ url: await pg.freshDatabase(), logger: silent });
    onTestFinished(() => pool.end());
    await migrate(pool, silent);
    return pool;
  }

  it('sends every item once when two relays work the same outbox', async () => {
    const pool = await teamPool();
    const sent: string[] = [];
    const relay = (id: string) => {
      const outbox = createOutbox({
        name: 'pager',
        store: createPgOutboxStore(pool, 'pager', id),
        send: async (item: StoredItem) => {
          sent.push(item.key);
          // Both relays are inside a send at once: the other's claim must skip what this one holds.
          await new Promise((resolve) => setImmediate(resolve));
          return { ok: true };
        },
        logger: silent,
      });
      onTestFinished(() => outbox.stop());
      return outbox;
    };
    const a = relay('relay-a');
    const b = relay('relay-b');
    const keys = Array.from({ length: 40 }, (_, i) => `INC-${i}:page:0`);
    // Both relays saw the same triggers: each key is stored once.
    const queued = await Promise.all(keys.flatMap((key) => [a, b].map((o) => o.enqueue({ key, kind: 'pagerduty', payload: { key } }))));
    expect(queued.filter((q) => q.queued)).toHaveLength(keys.length);
    a.start();
    b.start();
    while ((await createPgOutboxStore(pool, 'pager', 'test').backlog()) > 0) await Promise.all([a.idle(), b.idle()]);
    expect([...sent].sort()).toEqual([...keys].sort());
    expect(a.status().sent + b.status().sent).toBe(keys.length);
  });

  it('leaves a claimed item to its relay until the lease runs out, then another relay sends it', async () => {
    const pool = await teamPool();
    const a = createPgOutboxStore(pool, 'pager', 'relay-a');
    const b = createPgOutboxStore(pool, 'pager', 'relay-b');
    const t0 = new Date('2026-11-21T10:00:00Z');
    await a.add({ key: 'k1', kind: 'pagerduty', payload: {} }, t0);
    expect((await a.claim(t0, 60_000, 10)).map((i) => i.key)).toEqual(['k1']);
    expect(await b.claim(new Date(t0.getTime() + 59_000), 60_000, 10)).toEqual([]);
    const taken = await b.claim(new Date(t0.getTime() + 61_000), 60_000, 10);
    expect(taken.map((i) => i.key)).toEqual(['k1']);
    // The dead relay's late answer is not recorded over the new owner's.
    await a.finish('k1', 'sent', undefined, new Date(t0.getTime() + 62_000));
    expect(await a.backlog()).toBe(1);
    await b.finish('k1', 'sent', undefined, new Date(t0.getTime() + 62_000));
    expect(await a.backlog()).toBe(0);
    expect(await a.add({ key: 'k1', kind: 'pagerduty', payload: {} }, t0)).toBe(false);
    // A batch of events counts as its events in the backlog's units (migration 9).
    await a.add({ key: 'batch-1', kind: 'splunk_hec', payload: {}, units: 7 }, t0);
    await a.add({ key: 'page-1', kind: 'pagerduty', payload: {} }, t0);
    expect([await a.backlog(), await a.backlogUnits()]).toEqual([2, 8]);
  });
});
