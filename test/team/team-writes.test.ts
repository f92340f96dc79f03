import type { Client } from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { systemClock, type Clock } from '../../src/core/clock';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002 } from '../helpers/relay';
import { noPostgres, testConnection, usePostgres } from '../helpers/postgres';
import { teamMember } from './team-relays';

/**
 * What a team relay answered 202 is stored where it was answered. An incident that ends while
 * PostgreSQL is away: its end is written when the database is back, in the same commit as its
 * fault's next incident, and must come first; no id names two incidents. An alert the database
 * refuses to store (a rule the relay's door does not know) is answered 503 alone.
 */
const pg = usePostgres();

const post = (relay: Relay, neighbor: string) => relay.app.inject({ method: 'POST', url: '/fault-alert', payload: ad000002({ neighbor_ip: neighbor }) });

describe.skipIf(Boolean(noPostgres))('team relay: an incident ended while the database is away', () => {
  it("its fault's next alert opens a new incident with its own id and count, beside a new fault's in the same second", { timeout: 60_000 }, async () => {
    const url = await pg.freshDatabase({ crashSafe: true });
    // Every alert in the same second: the second incident of the second takes the first's id plus -2.
    const clock: Clock = { now: () => new Date('2026-11-21T10:00:00.250Z'), setTimeout: systemClock.setTimeout };
    // No retry of the failed end by itself: it goes with the next alert's commit, as it does when that comes first.
    const a = await teamMember(url, { clock, retryMs: 600_000 });
    const first = await post(a.relay, '10.0.0.2');
    expect(first.statusCode).toBe(202);
    let ended = first.json().incident_id as string;
    const answered = new Map<string, { neighbor: string; n: number }>();

    for (const [round, other] of ['10.0.1.1', '10.0.1.2'].entries()) {
      await pg.server().stop('fast');
      try {
        a.relay.incidents.transition(ended, 'fail');
        await expect(a.store.flush()).rejects.toThrow(/not reachable/);
      } finally {
        await pg.server().start();
      }
      // The same fault again and a new one: each answered with an incident of its own, counted there.
      for (const neighbor of ['10.0.0.2', other, '10.0.0.2', other, other]) {
        let res = await post(a.relay, neighbor);
        // The pool may still hold a connection to the server that went: refused, and sent again.
        for (let tries = 0; res.statusCode === 503 && tries < 5; tries++) res = await post(a.relay, neighbor);
        expect(res.statusCode, res.body).toBe(202);
        const id = res.json().incident_id as string;
        expect(id, `round ${round}`).not.toBe(ended);
        const seen = answered.get(id) ?? { neighbor, n: 0 };
        expect(seen.neighbor, `${id} answered for two faults`).toBe(neighbor);
        answered.set(id, { neighbor, n: seen.n + 1 });
      }
      await a.store.flush();
      const db: Client = await testConnection(url);
      onTestFinished(() => db.end());
      const rows = await db.query<{ incident_id: string; neighbor: string; occurrences: number; terminal: boolean }>(
        "SELECT incident_id, doc->'alert_vars'->>'neighbor_ip' AS neighbor, occurrences, terminal FROM incidents",
      );
      const stored = new Map(rows.rows.map((r) => [r.incident_id, r]));
      // Every incident answered is stored for the fault it was answered for, with every 202 counted.
      for (const [id, { neighbor, n }] of answered) expect(stored.get(id), id).toMatchObject({ neighbor, occurrences: n });
      // The fault's latest incident is its open one; the one ended during the outage is ended.
      const latest = new Map([...answered].map(([id, v]) => [v.neighbor, id]));
      expect(rows.rows.filter((r) => !r.terminal).map((r) => r.incident_id).sort()).toEqual([...latest.values()].sort());
      expect(stored.get(ended)?.terminal).toBe(true);
      expect(a.relay.incidents.get(ended)?.state).toBe('failed');
      ended = latest.get('10.0.0.2') as string;
      // The new fault's incident is left open; the next round ends this fault's again.
    }
  });
});

describe.skipIf(Boolean(noPostgres))('team relay: an alert the database refuses to store', () => {
  it('is answered 503 saying so, each time, and never holds up the alerts after it', { timeout: 60_000 }, async () => {
    const url = await pg.freshDatabase();
    const a = await teamMember(url, { retryMs: 50 });
    const db: Client = await testConnection(url);
    onTestFinished(() => db.end());
    // A rule of the database's that the relay's door knows nothing of.
    await db.query("ALTER TABLE incidents ADD CONSTRAINT no_lab_peer CHECK (doc->'alert_vars'->>'neighbor_ip' IS DISTINCT FROM '10.9.9.9')");
    for (const round of [1, 2]) {
      const refused = await post(a.relay, '10.9.9.9');
      expect(refused.statusCode, refused.body).toBe(503);
      expect(refused.json().error.message).toMatch(/refused to store INC-.*check constraint "no_lab_peer"/);
      expect(refused.json().error.message).not.toMatch(/not reachable/);
      const taken = await post(a.relay, `10.0.${round}.1`);
      expect(taken.statusCode, taken.body).toBe(202);
      expect((await post(a.relay, `10.0.${round}.1`)).json()).toMatchObject({ status: 'duplicate', occurrences: 2 });
    }
    const rows = await db.query<{ neighbor: string; occurrences: number }>("SELECT doc->'alert_vars'->>'neighbor_ip' AS neighbor, occurrences FROM incidents ORDER BY neighbor");
    expect(rows.rows).toEqual([
      { neighbor: '10.0.1.1', occurrences: 2 },
      { neighbor: '10.0.2.1', occurrences: 2 },
    ]);
    const health = await a.relay.app.inject({ method: 'GET', url: '/health' });
    expect(health.json().warnings.join('\n')).toMatch(/The incident database refused 2 writes .*set aside, every other write committed/);
  });
});
