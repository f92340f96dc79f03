import { describe, expect, it, onTestFinished } from 'vitest';
import type { Incident } from '../../src/core/incidents/model';
import { StoreUnavailableError } from '../../src/core/incidents/store';
import { createPool, migrate } from '../../src/adapters/store-pg/database';
import { createPgStore, type SharedIncidentStore } from '../../src/adapters/store-pg/pg-store';
import { captureLogger } from '../helpers/capture-logger';
import { noPostgres, testConnection, untilDatabase, usePostgres } from '../helpers/postgres';
import { silent } from '../helpers/relay';
import { incident } from './store-contract';

/**
 * Writes the database refuses: none is dropped silently, and none leaves the store retrying for
 * ever. Two stores on one database stand for two relays whose memories have not met yet.
 */
const pg = usePostgres();

async function twoRelays(logger = silent) {
  const url = await pg.freshDatabase();
  const pool = createPool({ url, logger: silent });
  onTestFinished(() => pool.end());
  await migrate(pool, silent);
  const a = await createPgStore({ pool, relayId: 'a', retention: 100, logger, retryBaseMs: 20, retryMaxMs: 100 });
  const b = await createPgStore({ pool, relayId: 'b', retention: 100, logger: silent });
  const db = await testConnection(url);
  onTestFinished(() => db.end());
  return { a, b, db };
}

/** What the relay's coordinator does with stale incidents: read back; resolves with their ids. */
const nextStale = (store: SharedIncidentStore) =>
  new Promise<string[]>((resolve) => store.onStale((ids) => store.refresh(ids).then(() => resolve(ids))));

/** The same fault (dedup key `k`), as each relay took it. */
const fault = (id: string, extra: Partial<Incident> = {}): Incident => ({ ...incident(1), incident_id: id, dedup_key: 'k', ...extra });

describe.skipIf(Boolean(noPostgres))('PostgreSQL store: conflicts', () => {
  it("folds a new incident into another relay's open one for the same fault: count added, a line there, dropped here", async () => {
    const { a, b, db } = await twoRelays();
    b.put(fault('INC-B'));
    await b.flush();
    const stale = nextStale(a);
    a.appendTimeline('INC-A', { at: 'x', type: 'alert.received', message: 'taken here too' });
    a.put(fault('INC-A', { occurrences: 3 }));
    await a.flush();
    expect(await stale).toEqual(['INC-B']);
    expect(a.get('INC-A')).toBeUndefined();
    expect(a.get('INC-B')?.occurrences).toBe(4);
    expect(a.timeline('INC-B').map((e) => e.type)).toEqual(['alert.folded']);
    expect(a.health()).toMatchObject({ ok: true, pending_writes: 0 });
    const rows = await db.query('SELECT incident_id, occurrences FROM incidents');
    expect(rows.rows).toEqual([{ incident_id: 'INC-B', occurrences: 4 }]);
    const lines = await db.query<{ incident_id: string; type: string }>("SELECT incident_id, entry->>'type' AS type FROM timeline ORDER BY seq");
    expect(lines.rows).toEqual([{ incident_id: 'INC-B', type: 'alert.folded' }]);
  });

  it('moves repeats counted while the folding commit ran onto the survivor', async () => {
    const { a, b, db } = await twoRelays();
    b.put(fault('INC-B'));
    await b.flush();
    // A's commit waits for this lock: the repeat below is counted after its batch was taken.
    await db.query('BEGIN');
    await db.query('LOCK TABLE incidents IN EXCLUSIVE MODE');
    a.put(fault('INC-A'));
    const folding = a.flush();
    await untilDatabase(db, "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'relation' AND NOT granted) AS ok");
    a.put(fault('INC-A', { occurrences: 2 }), { lazy: true });
    await db.query('COMMIT');
    await folding;
    await a.flush();
    expect((await db.query('SELECT incident_id, occurrences FROM incidents')).rows).toEqual([{ incident_id: 'INC-B', occurrences: 3 }]);
    expect(a.health()).toMatchObject({ ok: true, pending_writes: 0 });
  });

  it('says so when a new incident finds its id taken by another incident: not stored, an error logged, and the store goes on', async () => {
    const log = captureLogger();
    const { a, b, db } = await twoRelays(log.logger);
    b.put(fault('INC-1', { dedup_key: 'other fault' }));
    await b.flush();
    a.put(fault('INC-1', { created_at: '2026-11-21T10:09:00.000Z' }));
    a.put(incident(2));
    await expect(a.flush()).rejects.toThrow(StoreUnavailableError);
    expect(log.text()).toMatch(/incident id conflict: incidents INC-1 were not stored/);
    expect(a.get('INC-1')).toBeUndefined();
    // The database holds that id: the relay's next new incident never takes it.
    expect(a.idTaken?.('INC-1')).toBe(true);
    const rows = await db.query<{ incident_id: string; dedup_key: string }>('SELECT incident_id, dedup_key FROM incidents ORDER BY incident_id');
    expect(rows.rows).toEqual([
      { incident_id: 'INC-1', dedup_key: 'other fault' },
      { incident_id: 'INC-2', dedup_key: 'k2' },
    ]);
    a.put(incident(3));
    await a.flush();
    expect(a.health()).toMatchObject({ ok: true, pending_writes: 0 });
  });

  it('a count taken back (a repeat answered 503) is subtracted, whether or not its increment was committed', async () => {
    const { a, db } = await twoRelays();
    a.put(fault('INC-A'));
    await a.flush();
    a.put(fault('INC-A', { occurrences: 2 }), { lazy: true });
    await a.flush();
    a.put(fault('INC-A', { occurrences: 1 }), { lazy: true });
    a.put(fault('INC-A', { occurrences: 2 }), { lazy: true });
    a.put(fault('INC-A', { occurrences: 1 }), { lazy: true });
    await a.flush();
    expect((await db.query('SELECT occurrences FROM incidents')).rows).toEqual([{ occurrences: 1 }]);
    expect(a.get('INC-A')?.occurrences).toBe(1);
  });
});
