import { describe, expect, it, onTestFinished } from 'vitest';
import { dedupKeyOf } from '../../src/adapters/alert-sources/normalize';
import { inboundAlertSchema } from '../../src/adapters/alert-sources/schema';
import type { Relay } from '../../src/relay/create-relay';
import { NEW_INCIDENT_LOCK, newIncidentLockKey } from '../../src/adapters/team/new-incident-lock';
import { ad000002 } from '../helpers/relay';
import { noPostgres, testConnection, untilDatabase, usePostgres } from '../helpers/postgres';
import { teamRepository } from '../../src/adapters/store-pg/team-repository';
import { teamMember } from './team-relays';

/**
 * The new-incident lock is per fault: two relays taking the same new fault make one incident and
 * tell both senders its id; different faults are created side by side, one waiting on its own
 * fault's lock holding up no other.
 */
const pg = usePostgres();

const post = (relay: Relay, body: unknown) => relay.app.inject({ method: 'POST', url: '/fault-alert', payload: body as object });
/**
 * As Splunk sends: again after a 503 (a loaded machine can be slower to open a database connection
 * than the relay waits; the relay then refuses, counting nothing). Bounded: a relay that never
 * accepts fails the test with its last answer.
 */
async function sent(relay: Relay, body: unknown) {
  let answer = await post(relay, body);
  for (let tries = 1; answer.statusCode === 503 && tries < 20; tries++) answer = await post(relay, body);
  return answer;
}
const fault = (n: number) => ad000002({ neighbor_ip: `10.9.${n >> 8}.${n & 255}` });
/** Every run delivered at once: no alert waits for a run slot. */
const env = { MAX_ACTIVE_RUNS: '100' };

describe.skipIf(Boolean(noPostgres))('team relay: the new-incident lock, per fault', () => {
  it('two relays taking 40 new faults at once, each fault sent to both: one incident per fault, both senders told its id, every alert counted', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url, { env });
    const b = await teamMember(url, { env });
    const faults = Array.from({ length: 40 }, (_, n) => n);
    const answers = await Promise.all(faults.map((n) => Promise.all([sent(a.relay, fault(n)), sent(b.relay, fault(n))])));
    for (const [fromA, fromB] of answers) {
      expect(fromA.statusCode, fromA.body).toBe(202);
      expect(fromB.statusCode, fromB.body).toBe(202);
      // Had the two relays each made one, the database would have folded one away under a different id.
      expect(fromA.json().incident_id).toBe(fromB.json().incident_id);
    }
    await a.store.flush();
    await b.store.flush();
    const db = a.store.pool;
    const rows = await db.query<{ n: number; faults: number; occ: number }>('SELECT count(*)::int AS n, count(DISTINCT dedup_key)::int AS faults, sum(occurrences)::int AS occ FROM incidents');
    expect(rows.rows[0]).toEqual({ n: 40, faults: 40, occ: 80 });
    const ids = new Set(answers.map(([fromA]) => fromA.json().incident_id as string));
    const stored = await db.query<{ incident_id: string }>('SELECT incident_id FROM incidents');
    expect(new Set(stored.rows.map((r) => r.incident_id))).toEqual(ids);
    // Nothing was folded after the fact: the lock, not the unique index, kept each fault to one incident.
    const folds = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM timeline WHERE entry->>'type' = 'alert.folded'");
    expect(folds.rows[0]?.n).toBe(0);
    // Each run delivered once, by one relay.
    expect(a.agent.sessions.length + b.agent.sessions.length).toBe(40);
  });

  it('a new fault waiting for its lock holds up no other fault, on either relay; once let go it makes its one incident', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url, { env });
    const b = await teamMember(url, { env });
    const db = await testConnection(url);
    onTestFinished(() => db.end());
    // Another relay (the test) holds fault 1's lock, as while it creates that fault.
    const lock = newIncidentLockKey(dedupKeyOf(inboundAlertSchema.parse(fault(1))));
    await db.query('SELECT pg_advisory_lock($1, $2)', lock);
    const waitingA = post(a.relay, fault(1));
    const waitingB = post(b.relay, fault(1));
    await untilDatabase(
      db,
      `SELECT count(*) = 2 AS ok FROM pg_locks WHERE locktype = 'advisory' AND classid = ${NEW_INCIDENT_LOCK} AND objsubid = 2 AND objid = $1::bigint AND NOT granted`,
      [lock[1] >>> 0],
    );
    // Other faults go through on both relays meanwhile, fault 1 still waiting on each.
    for (const [n, relay] of [[2, a.relay], [3, b.relay], [4, a.relay]] as const) {
      const other = await post(relay, fault(n));
      expect(other.statusCode).toBe(202);
      expect(other.json().status).not.toBe('duplicate');
    }
    expect((await db.query('SELECT count(*)::int AS n FROM incidents')).rows[0].n).toBe(3);
    await db.query('SELECT pg_advisory_unlock($1, $2)', lock);
    const [fromA, fromB] = await Promise.all([waitingA, waitingB]);
    expect([fromA.statusCode, fromB.statusCode]).toEqual([202, 202]);
    expect(fromA.json().incident_id).toBe(fromB.json().incident_id);
    expect([fromA.json().status, fromB.json().status].sort()).toEqual(['accepted', 'duplicate']);
    await a.store.flush();
    await b.store.flush();
    const rows = await db.query<{ n: number; occ: number }>('SELECT count(*)::int AS n, sum(occurrences)::int AS occ FROM incidents');
    expect(rows.rows[0]).toEqual({ n: 4, occ: 5 });
  });

  it('reads the fault\'s open incident under its lock whatever the fault key holds: quotes, backslashes and statements stay data', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url);
    const id = (await post(a.relay, ad000002())).json().incident_id as string;
    await a.store.flush();
    // The key is made from alert text (untrusted) and goes into the lock's one round trip as a literal.
    const key = "AD000002|R1'; DROP TABLE incidents; --|\\'|$$|E'\\'";
    const db = await testConnection(url);
    onTestFinished(() => db.end());
    await db.query('UPDATE incidents SET dedup_key = $1 WHERE incident_id = $2', [key, id]);
    const client = await a.store.pool.connect();
    try {
      expect(await teamRepository(client).lockFault(newIncidentLockKey(key), key, 5_000, 10_000)).toEqual([id]);
      const held = await db.query('SELECT count(*)::int AS n FROM pg_locks WHERE locktype = $1 AND classid = $2 AND objsubid = 2', ['advisory', NEW_INCIDENT_LOCK]);
      expect(held.rows[0].n).toBe(1);
    } finally {
      await client.query('COMMIT');
      client.release();
    }
    const rows = await db.query<{ dedup_key: string }>('SELECT dedup_key FROM incidents');
    expect(rows.rows).toEqual([{ dedup_key: key }]);
  });
});
