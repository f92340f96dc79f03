import type { Client } from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { dedupKeyOf } from '../../src/adapters/alert-sources/normalize';
import { inboundAlertSchema } from '../../src/adapters/alert-sources/schema';
import { WEBEX_LEADER_LOCK } from '../../src/adapters/team/coordinator';
import { NEW_INCIDENT_LOCK, newIncidentLockKey } from '../../src/adapters/team/new-incident-lock';
import { ad000002 } from '../helpers/relay';
import { endRelayConnections, noPostgres, testConnection, untilDatabase, usePostgres } from '../helpers/postgres';
import { teamMember } from './team-relays';

/**
 * A relay whose connections the database ends (pg_terminate_backend) while it holds them: pg
 * emits 'error' on each, and one without a listener would be an unhandled error here (vitest
 * fails the file for it) and a crash in a relay process.
 */
const pg = usePostgres();

const post = (relay: Relay, body: unknown) => relay.app.inject({ method: 'POST', url: '/fault-alert', payload: body as object });

async function database(url: string): Promise<Client> {
  const db = await testConnection(url);
  onTestFinished(() => db.end());
  return db;
}

/** Whether a connection other than the test's holds (`true`) or waits for (`false`) a new-incident lock (any fault's). */
const newIncidentLock = (granted: boolean) =>
  `EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = ${NEW_INCIDENT_LOCK} AND objsubid = 2 AND granted = ${granted} AND pid <> pg_backend_pid())`;
/** The new-incident lock of ad000002()'s fault, as the test takes it (the relay's is per fault). */
const faultLock = newIncidentLockKey(dedupKeyOf(inboundAlertSchema.parse(ad000002())));
const holds = async (db: Client, condition: string) => (await db.query<{ ok: boolean }>(`SELECT ${condition} AS ok`)).rows[0]?.ok;

describe.skipIf(Boolean(noPostgres))('team relay: the database ends its connections', () => {
  it('while it holds the new-incident lock and commits under it: no unhandled error, 503 meanwhile, the retry accepted', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url);
    // The leader lock's connection is ended with the rest.
    a.team.lead(WEBEX_LEADER_LOCK, () => {}, () => {});
    const db = await database(url);
    // The relay's commit of its new incident waits for this table lock, with the team's lock held.
    await db.query('BEGIN');
    await db.query('LOCK TABLE incidents IN EXCLUSIVE MODE');
    const answer = post(a.relay, ad000002());
    // (pg_locks, not pg_stat_activity: that one is read once per transaction.)
    await untilDatabase(db, `SELECT ${newIncidentLock(true)} AND EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'relation' AND NOT granted) AS ok`);
    // The lock's connection (idle in its transaction), the commit's (waiting), the listener's, the leader's.
    expect(await endRelayConnections(db)).toBeGreaterThanOrEqual(4);
    await db.query('COMMIT');
    // Refused, or accepted by the store's next try on a new connection: never an error of another kind.
    const first = await answer;
    expect(first.statusCode === 202 || (first.statusCode === 503 && first.headers['retry-after'] === '5')).toBe(true);
    // Splunk's retry (or the next repeat) folds onto the incident the relay kept in memory; a 503 counted nothing.
    const retried = await post(a.relay, ad000002());
    expect(retried.statusCode).toBe(202);
    await a.store.flush();
    const rows = await db.query<{ n: number; occurrences: number }>('SELECT count(*)::int AS n, max(occurrences) AS occurrences FROM incidents');
    expect(rows.rows[0]).toEqual({ n: 1, occurrences: first.statusCode === 202 ? 2 : 1 });
    // Nothing is left holding the team's lock.
    expect(await holds(db, newIncidentLock(true))).toBe(false);
  });

  it('while it waits for the new-incident lock: no unhandled error, 503, and the next alert accepted', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url);
    const db = await database(url);
    await db.query('SELECT pg_advisory_lock($1, $2)', faultLock);
    const answer = post(a.relay, ad000002());
    await untilDatabase(db, `SELECT ${newIncidentLock(false)} AS ok`);
    expect(await endRelayConnections(db)).toBeGreaterThanOrEqual(2);
    const refused = await answer;
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    await db.query('SELECT pg_advisory_unlock($1, $2)', faultLock);
    expect(await holds(db, newIncidentLock(true))).toBe(false);
    expect((await post(a.relay, ad000002())).statusCode).toBe(202);
    expect((await db.query('SELECT count(*)::int AS n FROM incidents')).rows[0].n).toBe(1);
  });

  it('a lock wait that runs out is cancelled on the server: the lock is never granted late to an idle connection', async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url, { lockWaitMs: 200 });
    const db = await database(url);
    await db.query('SELECT pg_advisory_lock($1, $2)', faultLock);
    const refused = await post(a.relay, ad000002());
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error.message).toMatch(/lock/);
    // No connection of the relay's still waits: let go here, the lock is nobody's.
    expect(await holds(db, newIncidentLock(false))).toBe(false);
    await db.query('SELECT pg_advisory_unlock($1, $2)', faultLock);
    expect(await holds(db, newIncidentLock(true))).toBe(false);
    expect((await post(a.relay, ad000002())).statusCode).toBe(202);
  });

  it('restarted with pg_ctl restart -m immediate: no unhandled error, and it goes on by itself', async () => {
    const url = await pg.freshDatabase({ crashSafe: true });
    const a = await teamMember(url);
    a.team.lead(WEBEX_LEADER_LOCK, () => {}, () => {});
    expect((await post(a.relay, ad000002())).statusCode).toBe(202);
    await pg.server().restart('immediate');
    // The first alert after may still meet a connection the pool has not yet learnt is gone: refused, with Retry-After.
    let answer = await post(a.relay, ad000002({ neighbor_ip: '10.0.0.9' }));
    for (let tries = 1; answer.statusCode === 503 && tries < 20; tries++) {
      expect(answer.headers['retry-after']).toBe('5');
      answer = await post(a.relay, ad000002({ neighbor_ip: '10.0.0.9' }));
    }
    expect(answer.statusCode).toBe(202);
    const db = await database(url);
    expect((await db.query('SELECT count(*)::int AS n FROM incidents')).rows[0].n).toBe(2);
  });
});
