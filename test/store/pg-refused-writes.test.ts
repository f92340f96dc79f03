import { describe, expect, it, onTestFinished } from 'vitest';
import { StoreUnavailableError } from '../../src/core/incidents/store';
import { createPool, migrate } from '../../src/adapters/store-pg/database';
import { createPgStore } from '../../src/adapters/store-pg/pg-store';
import { captureLogger } from '../helpers/capture-logger';
import { noPostgres, testConnection, usePostgres } from '../helpers/postgres';
import { silent } from '../helpers/relay';
import { incident } from './store-contract';

/**
 * Writes PostgreSQL refuses for what they hold (a NUL in `jsonb`, below the relay's door): each
 * is tried alone and set aside, said on the store's health and the incident's timeline, and
 * every other write of its batch, and after it, is committed. None is retried for ever.
 */
const pg = usePostgres();

async function store() {
  const url = await pg.freshDatabase();
  const pool = createPool({ url, logger: silent });
  onTestFinished(() => pool.end());
  await migrate(pool, silent);
  const log = captureLogger();
  const s = await createPgStore({ pool, relayId: 'a', retention: 100, logger: log.logger, retryBaseMs: 20, retryMaxMs: 100 });
  const db = await testConnection(url);
  onTestFinished(() => db.end());
  const stored = async () => (await db.query<{ incident_id: string; state: string }>('SELECT incident_id, state FROM incidents ORDER BY incident_id')).rows;
  const lines = async (id: string) => (await db.query<{ type: string }>("SELECT entry->>'type' AS type FROM timeline WHERE incident_id = $1 ORDER BY seq", [id])).rows.map((r) => r.type);
  return { s, db, log, stored, lines };
}

describe.skipIf(Boolean(noPostgres))('PostgreSQL store: writes the database refuses', () => {
  it('a new incident it cannot hold is set aside; the rest of its batch and the next batches are committed', async () => {
    const { s, log, stored, lines } = await store();
    s.put(incident(1));
    s.appendTimeline('INC-2', { at: 'x', type: 'alert.received', message: 'with a NUL\u0000' });
    s.put(incident(2, 'queued', { alert_vars: { neighbor_ip: '10.1.1.2', site: 'a\u0000b' } }));
    s.put(incident(3));
    const error = await s.flush().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    // It names the write and the database's reason, not an outage.
    expect((error as Error).message).toMatch(/refused to store INC-2/);
    expect((error as Error).message).not.toMatch(/not reachable/);
    expect(await stored()).toEqual([
      { incident_id: 'INC-1', state: 'queued' },
      { incident_id: 'INC-3', state: 'queued' },
    ]);
    // Never stored, so not kept: its alert was answered 503, and its id is not given again.
    expect(s.get('INC-2')).toBeUndefined();
    expect(s.idTaken?.('INC-2')).toBe(true);
    expect(await lines('INC-2')).toEqual([]);
    expect(s.health()).toMatchObject({ ok: true, pending_writes: 0, refused_writes: 1, last_refused: expect.stringMatching(/^INC-2: /) });
    expect(log.text()).toMatch(/the database refused a write of INC-2; set aside, the rest committed/);

    s.put(incident(4));
    await s.flush();
    expect((await stored()).map((r) => r.incident_id)).toEqual(['INC-1', 'INC-3', 'INC-4']);
  });

  it("a known incident's record or line it cannot hold is set aside and said on that incident's timeline; the others are committed", async () => {
    const { s, stored, lines } = await store();
    s.put(incident(1));
    s.put(incident(2));
    await s.flush();
    s.put(incident(1, 'running', { session_id: 'ses_\u0000' }));
    s.appendTimeline('INC-2', { at: 'x', type: 'agent.note', message: 'model text\u0000' });
    s.put(incident(2, 'running', { session_id: 'ses_2' }));
    s.put(incident(3));
    await expect(s.flush()).rejects.toThrow(/refused to store INC-1 .*INC-2/);
    expect(await stored()).toEqual([
      { incident_id: 'INC-1', state: 'queued' },
      { incident_id: 'INC-2', state: 'running' },
      { incident_id: 'INC-3', state: 'queued' },
    ]);
    // The lines saying so are written with the next commit.
    await s.flush();
    expect(await lines('INC-1')).toEqual(['store.write_refused']);
    expect(await lines('INC-2')).toEqual(['store.write_refused']);
    expect(s.timeline('INC-1').at(-1)?.message).toMatch(/refused to store its record .*set aside/);
    expect(s.timeline('INC-2').at(-1)?.message).toMatch(/refused to store a line of its timeline/);
    expect(s.health()).toMatchObject({ ok: true, pending_writes: 0, refused_writes: 2 });
  });
});
