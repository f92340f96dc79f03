import type { Client } from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { systemClock, type Clock } from '../../src/core/clock';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002 } from '../helpers/relay';
import { noPostgres, testConnection, untilDatabase, usePostgres } from '../helpers/postgres';
import { stallProxy } from './stall-proxy';
import { teamMember } from './team-relays';

/**
 * Item 5 and 7 of the team relay: ids unique across relays, and a conflict, a stall or a lock
 * wait that never leaves a relay stuck or counts an alert answered 503.
 */
const pg = usePostgres();

const post = (relay: Relay, body: unknown) => relay.app.inject({ method: 'POST', url: '/fault-alert', payload: body as object });

async function database(url: string): Promise<Client> {
  const db = await testConnection(url);
  onTestFinished(() => db.end());
  return db;
}

/** The relay's commit waits for this table lock (its reads do not): the database "stalls" for its writes. */
async function lockIncidents(db: Client): Promise<void> {
  await db.query('BEGIN');
  await db.query('LOCK TABLE incidents IN EXCLUSIVE MODE');
}
const commitWaits = "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'relation' AND NOT granted) AS ok";

/** The store's flush, again while it meets connections the stall left broken (a few at most). */
async function flushed(store: { flush(): Promise<void> }): Promise<void> {
  for (let tries = 1; ; tries++) {
    const error = await store.flush().then(() => undefined, (e: unknown) => e);
    if (!error) return;
    if (tries === 5) throw error;
  }
}

const counts = async (db: Client) =>
  (await db.query<{ incident_id: string; occurrences: number }>('SELECT incident_id, occurrences FROM incidents WHERE NOT terminal ORDER BY incident_id')).rows;

describe.skipIf(Boolean(noPostgres))('team relay: incident ids', () => {
  it('two relays creating incidents in the same second make different ids, each stored, each carrying its relay tag', async () => {
    const url = await pg.freshDatabase();
    // Both clocks read the same instant: the seed's ids (to the second) would be the same.
    const clock: Clock = { now: () => new Date('2026-11-21T10:00:00.250Z'), setTimeout: systemClock.setTimeout };
    const a = await teamMember(url, { clock });
    const b = await teamMember(url, { clock });
    const answers = await Promise.all([
      post(a.relay, ad000002({ neighbor_ip: '10.0.0.1' })),
      post(b.relay, ad000002({ neighbor_ip: '10.0.0.2' })),
      post(a.relay, ad000002({ neighbor_ip: '10.0.0.3' })),
      post(b.relay, ad000002({ neighbor_ip: '10.0.0.4' })),
    ]);
    expect(answers.map((r) => r.statusCode), answers[0]?.body).toEqual([202, 202, 202, 202]);
    const ids = answers.map((r) => r.json().incident_id as string);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^INC-20261121T100000Z-r[0-9a-z]+(-\d+)?$/);
    expect(ids[0]?.startsWith(`INC-20261121T100000Z-${a.store.idTag}`)).toBe(true);
    expect(ids[1]?.startsWith(`INC-20261121T100000Z-${b.store.idTag}`)).toBe(true);
    expect(a.store.idTag).not.toBe(b.store.idTag);
    const db = await database(url);
    expect((await counts(db)).map((r) => r.incident_id).sort()).toEqual([...ids].sort());
  });
});

describe.skipIf(Boolean(noPostgres))('team relay: an alert answered 503 counts nothing', () => {
  it('a repeat refused while its write waits is taken back; the retry is counted once', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url, { queryTimeoutMs: 1_500 });
    const id = (await post(a.relay, ad000002())).json().incident_id as string;
    const db = await database(url);
    await lockIncidents(db);
    const refused = await post(a.relay, ad000002());
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    await db.query('COMMIT');
    const retried = await post(a.relay, ad000002());
    expect(retried.json()).toMatchObject({ status: 'duplicate', incident_id: id, occurrences: 2 });
    await a.store.flush();
    expect(await counts(db)).toEqual([{ incident_id: id, occurrences: 2 }]);
    expect(a.relay.incidents.get(id)?.occurrences).toBe(2);
  });

  it('a new fault refused after it was created stays queued here; its retry is its first occurrence, not a second', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url, { queryTimeoutMs: 1_500 });
    const db = await database(url);
    await lockIncidents(db);
    const refused = await post(a.relay, ad000002());
    expect(refused.statusCode).toBe(503);
    await db.query('COMMIT');
    const retried = await post(a.relay, ad000002());
    expect(retried.statusCode).toBe(202);
    expect(retried.json().occurrences).toBe(1);
    await a.store.flush();
    expect((await counts(db)).map((r) => r.occurrences)).toEqual([1]);
    // The next one is a repeat again.
    expect((await post(a.relay, ad000002())).json().occurrences).toBe(2);
  });
});

describe.skipIf(Boolean(noPostgres))('team relay: lock waits', () => {
  it('a commit waiting for a lock longer than the relay waits is cancelled by the server itself, and the relay goes on', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url, { queryTimeoutMs: 2_000 });
    const db = await database(url);
    await lockIncidents(db);
    const refused = await post(a.relay, ad000002());
    expect(refused.statusCode).toBe(503);
    // The server's statement timeout (shorter than the driver's) answered, not the driver giving up.
    expect(refused.json().error.message).toMatch(/cancelled on the server/);
    await db.query('COMMIT');
    expect((await post(a.relay, ad000002())).statusCode).toBe(202);
  });
});

describe.skipIf(Boolean(noPostgres))('team relay: a stall while two relays take the same new fault', () => {
  it("folds the stalled relay's incident into the one the other made: counted once, said on the timeline, and the relay answers 202 again", async () => {
    const url = await pg.freshDatabase();
    const proxy = await stallProxy(url);
    // A reaches the database through a proxy that stalls; its waits are short so the test is.
    const a = await teamMember(proxy.url, { queryTimeoutMs: 1_000 });
    const b = await teamMember(url);
    const db = await database(url);
    // A creates the incident; its commit waits here, and then A's network stalls: the insert never lands.
    await lockIncidents(db);
    const first = post(a.relay, ad000002());
    await untilDatabase(db, commitWaits);
    proxy.stall();
    await db.query('COMMIT');
    expect((await first).statusCode).toBe(503);
    const fromA = a.relay.incidents.list()[0];
    expect(fromA?.state).toBe('queued');

    // B takes the same fault: the server ends A's silent sessions (their locks with them), and B makes the incident.
    const second = await post(b.relay, ad000002());
    expect(second.statusCode).toBe(202);
    const survivor = second.json().incident_id as string;
    expect(survivor).not.toBe(fromA?.incident_id);

    // A's network is back: its queued insert meets B's open incident for the fault and is folded into it.
    proxy.resume();
    await flushed(a.store);
    expect(a.store.health()).toMatchObject({ ok: true, pending_writes: 0 });
    expect(a.relay.incidents.get(fromA?.incident_id ?? '')).toBeUndefined();
    // Splunk's retry of the refused alert, sent to A: one alert, counted once with B's.
    const retried = await post(a.relay, ad000002());
    expect(retried.json()).toMatchObject({ status: 'duplicate', incident_id: survivor, occurrences: 2 });
    const again = await post(a.relay, ad000002());
    expect(again.json()).toMatchObject({ status: 'duplicate', incident_id: survivor, occurrences: 3 });
    await a.store.flush();
    expect(await counts(db)).toEqual([{ incident_id: survivor, occurrences: 3 }]);
    const folded = await db.query<{ entry: { type: string; message: string; folded_incident_id: string } }>("SELECT entry FROM timeline WHERE incident_id = $1 AND entry->>'type' = 'alert.folded'", [survivor]);
    expect(folded.rows.map((r) => r.entry.folded_incident_id)).toEqual([fromA?.incident_id]);
    expect(folded.rows[0]?.entry.message).toMatch(/counted here/);
    // Nothing was stored under A's dropped id, and A's memory shows the survivor with the line.
    expect((await db.query('SELECT count(*)::int AS n FROM timeline WHERE incident_id = $1', [fromA?.incident_id])).rows[0].n).toBe(0);
    expect(a.relay.incidents.timeline(survivor).map((e) => e.type)).toContain('alert.folded');
  });

  it('answers the retry whose commit folds the incident with the incident it was folded into', async () => {
    const url = await pg.freshDatabase();
    const proxy = await stallProxy(url);
    // No commit by itself: the retry's is the one that meets B's incident.
    const a = await teamMember(proxy.url, { queryTimeoutMs: 1_000, retryMs: 600_000 });
    const b = await teamMember(url);
    const db = await database(url);
    await lockIncidents(db);
    const first = post(a.relay, ad000002());
    await untilDatabase(db, commitWaits);
    proxy.stall();
    await db.query('COMMIT');
    expect((await first).statusCode).toBe(503);
    const fromA = a.relay.incidents.list()[0]?.incident_id;
    const survivor = (await post(b.relay, ad000002())).json().incident_id as string;
    proxy.resume();
    // Splunk's retry, sent to A until its connections are new: answered with B's incident, never A's dropped one.
    let retried = await post(a.relay, ad000002());
    for (let tries = 0; retried.statusCode === 503 && tries < 5; tries++) retried = await post(a.relay, ad000002());
    expect(retried.json()).toMatchObject({ status: 'duplicate', incident_id: survivor, occurrences: 2 });
    expect(a.relay.incidents.get(fromA ?? '')).toBeUndefined();
    expect(await counts(db)).toEqual([{ incident_id: survivor, occurrences: 2 }]);
  });
});
