import { randomUUID } from 'node:crypto';
import { createPool, migrate } from '../../src/adapters/store-pg/database';
import { createPgStore } from '../../src/adapters/store-pg/pg-store';
import { silent } from '../helpers/relay';
import { endRelayConnections, noPostgres, testConnection, untilDatabase, usePostgres } from '../helpers/postgres';
import { describeStoreContract, incident } from './store-contract';
import { describe, expect, it, onTestFinished } from 'vitest';
import { StoreUnavailableError } from '../../src/core/incidents/store';
import { MIGRATIONS } from '../../src/adapters/store-pg/migrations';

const pg = usePostgres();

describeStoreContract(
  'PostgreSQL (the team relay)',
  async () => {
    const url = await pg.freshDatabase();
    const pool = createPool({ url, logger: silent });
    onTestFinished(() => pool.end());
    await migrate(pool, silent);
    return { open: async (opts) => createPgStore({ pool, relayId: randomUUID(), retention: opts?.retention ?? 1000, logger: silent }) };
  },
  { skip: noPostgres },
);

describe.skipIf(Boolean(noPostgres))('PostgreSQL store', () => {
  it('applies its migrations once, and refuses a database newer than it knows', async () => {
    const url = await pg.freshDatabase();
    const pool = createPool({ url, logger: silent });
    onTestFinished(() => pool.end());
    expect(await migrate(pool, silent)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await migrate(pool, silent)).toEqual([]);
    await pool.query("INSERT INTO schema_migrations (version, name) VALUES (999, 'from a newer relay')");
    await expect(migrate(pool, silent)).rejects.toThrow(/version 999, newer than this relay knows/);
  });

  it('keeps writes made while the database is away and commits them when it is back; health says so meanwhile', async () => {
    const url = await pg.freshDatabase();
    const pool = createPool({ url, logger: silent, connectTimeoutMs: 500 });
    onTestFinished(() => pool.end());
    await migrate(pool, silent);
    const store = await createPgStore({ pool, relayId: 'r1', retention: 100, logger: silent, retryBaseMs: 20, retryMaxMs: 100 });
    store.put(incident(1));
    await store.flush();
    await pg.server().stop('fast');
    try {
      store.put(incident(1, 'running', { session_id: 'ses_1' }));
      store.appendTimeline('INC-1', { at: 'y', type: 'prompt.sent', message: 'sent while the database was away' });
      await expect(store.flush()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(store.health()).toMatchObject({ backend: 'postgresql', ok: false, pending_writes: 2 });
      expect(store.health().error).toMatch(/refused|shutting down|terminat/i);
      // Memory already has it: the relay goes on serving what it knows.
      expect(store.get('INC-1')?.state).toBe('running');
    } finally {
      await pg.server().start();
    }
    await store.flush();
    expect(store.health()).toMatchObject({ ok: true, pending_writes: 0 });
    await store.close();
    const again = await createPgStore({ pool, relayId: 'r2', retention: 100, logger: silent });
    expect(again.get('INC-1')).toMatchObject({ state: 'running', session_id: 'ses_1' });
    expect(again.timeline('INC-1').map((e) => e.message)).toEqual(['sent while the database was away']);
  });

  it('keeps a batch whose connection the database ends mid-commit, with no unhandled error, and commits it after', async () => {
    const url = await pg.freshDatabase();
    const pool = createPool({ url, logger: silent });
    onTestFinished(() => pool.end());
    await migrate(pool, silent);
    const store = await createPgStore({ pool, relayId: 'r1', retention: 100, logger: silent, retryBaseMs: 20, retryMaxMs: 100 });
    const db = await testConnection(url);
    onTestFinished(() => db.end());
    // The commit waits for this table lock; the database then ends its connection (pg emits 'error' on it).
    await db.query('BEGIN');
    await db.query('LOCK TABLE incidents IN EXCLUSIVE MODE');
    store.put(incident(1));
    const flushed = store.flush();
    await untilDatabase(db, "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'relation' AND NOT granted) AS ok");
    expect(await endRelayConnections(db)).toBeGreaterThan(0);
    await expect(flushed).rejects.toBeInstanceOf(StoreUnavailableError);
    await db.query('COMMIT');
    await store.flush();
    expect((await pool.query('SELECT incident_id FROM incidents')).rows).toEqual([{ incident_id: 'INC-1' }]);
  });

  it("lets another relay fold duplicates into an incident it does not own, without overwriting the owner's record", async () => {
    const url = await pg.freshDatabase();
    const pool = createPool({ url, logger: silent });
    onTestFinished(() => pool.end());
    await migrate(pool, silent);
    const owner = await createPgStore({ pool, relayId: 'owner', retention: 100, logger: silent });
    const other = await createPgStore({ pool, relayId: 'other', retention: 100, logger: silent });
    owner.put(incident(1));
    await owner.flush();
    await other.refresh(['INC-1']);
    owner.put(incident(1, 'awaiting_approval', { session_id: 'ses_1' }));
    await owner.flush();
    // The other relay's memory is a step behind: its record still says queued.
    other.put({ ...incident(1), occurrences: 5, last_seen: '2026-11-21T11:00:00.000Z' }, { lazy: true });
    await other.flush();
    const [change] = await owner.refresh(['INC-1']);
    expect(change?.incident).toMatchObject({ state: 'awaiting_approval', session_id: 'ses_1', occurrences: 5, last_seen: '2026-11-21T11:00:00.000Z' });
    expect(other.get('INC-1')).toMatchObject({ state: 'awaiting_approval', occurrences: 5 });
  });
});
