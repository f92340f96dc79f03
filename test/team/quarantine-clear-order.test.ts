import { describe, expect, it, onTestFinished } from 'vitest';
import { createPool, migrate } from '../../src/adapters/store-pg/database';
import { pgQuarantine } from '../../src/adapters/store-pg/quarantine-repository';
import type { QuarantineBackend } from '../../src/core/quarantine/entry';
import { fileQuarantine } from '../../src/core/quarantine/file-backend';
import { createQuarantine } from '../../src/core/quarantine/service';
import { waitUntil } from '../helpers/opencode';
import { noPostgres, usePostgres } from '../helpers/postgres';
import { silent } from '../helpers/relay';
import { tempDir } from '../helpers/temp-dir';
import { inMemoryIncidents } from '../unit/incidents/in-memory-incidents';

/**
 * A quarantine a relay decided while the team's database was away reaches the database later. A
 * person's clear made meanwhile on another relay wins when it is later than the quarantine (the
 * person checked the device after that change failed); a clear made before it does not.
 */
const pg = usePostgres();

async function team() {
  const url = await pg.freshDatabase();
  const pool = createPool({ url, logger: silent });
  onTestFinished(() => pool.end());
  await migrate(pool, silent);
  let at = Date.parse('2026-11-28T12:00:00.000Z');
  const clock = { now: () => new Date(at), setTimeout: (fn: () => void, ms: number) => { const t = setTimeout(fn, ms); return { cancel: () => clearTimeout(t) }; } };
  const later = () => (at += 60_000);
  const away = { now: false };
  const db = pgQuarantine(pool);
  // Relay A's view of the same database, which it cannot reach while `away.now`.
  const fromA: QuarantineBackend = {
    load: () => (away.now ? Promise.reject(new Error('connection refused')) : db.load()),
    add: (e, o) => (away.now ? Promise.reject(new Error('connection refused')) : db.add(e, o)),
    remove: (d, c) => (away.now ? Promise.reject(new Error('connection refused')) : db.remove(d, c)),
  };
  const folder = tempDir('fault-relay-clear-order-');
  const relay = (backend: QuarantineBackend, withFolder: boolean) => {
    const q = createQuarantine({ backend, incidents: inMemoryIncidents().incidents, clock, logger: silent, retry: () => 20, ...(withFolder ? { folder: fileQuarantine(folder) } : {}) });
    onTestFinished(() => q.stop());
    return q;
  };
  return { db, fromA, away, later, relay, folder: () => fileQuarantine(folder).load() };
}

describe.skipIf(Boolean(noPostgres))('a quarantine written late, and a person clearing the device meanwhile', () => {
  it('a clear later than the quarantine wins: the relay started again drops it, from its folder too', async () => {
    const t = await team();
    const b = t.relay(t.db, false);
    await b.start();
    await b.unsure('INC-B', 'R1', 'the session broke mid-change');

    // A quarantines R1 while the database is away: kept in its folder, then A is killed.
    const a = t.relay(t.fromA, true);
    await a.start();
    t.away.now = true;
    t.later();
    await a.unsure('INC-A', 'R1', 'the rollback was incomplete');
    expect(a.unwritten()).toMatchObject([{ device: 'R1' }]);
    expect(await t.folder()).toMatchObject([{ device: 'R1', incident_id: 'INC-A' }]);
    a.stop();

    // A person checks R1 and clears it on B, after A's quarantine was decided.
    t.later();
    expect(await b.clear('R1', 'ana@example.net')).toMatchObject({ incident_id: 'INC-B' });

    // A starts again with the database back: its quarantine is older than the clear.
    t.away.now = false;
    const again = t.relay(t.fromA, true);
    const cleared: string[] = [];
    again.onCleared((e) => cleared.push(`${e.device} of ${e.incident_id}`));
    await again.start();
    expect(await t.db.load()).toEqual([]);
    expect(await t.folder()).toEqual([]);
    expect(again.list()).toEqual([]);
    expect(await again.check('R1')).toBeUndefined();
    expect(cleared).toEqual(['R1 of INC-A']);
  });

  it('a clear earlier than the quarantine does not: it reaches the database once it is back, and every relay refuses R1', async () => {
    const t = await team();
    const b = t.relay(t.db, false);
    await b.start();
    await b.unsure('INC-B', 'R1', 'the session broke mid-change');
    t.later();
    await b.clear('R1', 'ana@example.net');

    const a = t.relay(t.fromA, true);
    await a.start();
    t.away.now = true;
    t.later();
    await a.unsure('INC-A', 'R1', 'the rollback was incomplete');
    // Not readable from A: the quarantine A holds still answers its check.
    expect(await a.check('R1')).toMatchObject({ incident_id: 'INC-A' });

    t.away.now = false;
    await waitUntil(async () => (await t.folder()).length === 0, "A's retry writes the quarantine and takes it out of its folder");
    expect(await t.db.load()).toMatchObject([{ device: 'R1', incident_id: 'INC-A' }]);
    expect(a.unwritten()).toEqual([]);
    expect(await b.check('R1')).toMatchObject({ incident_id: 'INC-A' });
  });
});
