import type { Client } from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { systemClock, type Clock } from '../../src/clock';
import type { Relay } from '../../src/relay/create-relay';
import { ad000002 } from '../helpers/relay';
import { noPostgres, testConnection, usePostgres } from '../helpers/postgres';
import { teamMember } from './team-relays';

/**
 * An incident that ends while PostgreSQL is away: its end is written when the database is back,
 * in the same commit as its fault's next incident, and must come first. Every alert answered 202
 * is counted on the incident it was answered with, and no id names two incidents.
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
