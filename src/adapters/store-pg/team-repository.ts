import pg from 'pg';
import type { DecisionChannel } from '../../core/approvals/lifecycle';
import type { Decision } from '../../core/incidents/model';

/**
 * The team's SQL on the `relays`, `incidents` (ownership) and `decisions` tables, in one place:
 * team/* says when and why, this module says how. Locks (the new-incident lock, the leader lock)
 * are protocols over one held connection and stay with their owners in team/.
 */

/** A decision as the `decisions` table holds it: the first one recorded for a request wins. */
export interface DecisionRow {
  incident_id: string;
  requested_at: string;
  decision: Decision;
  by_name: string;
  channel: DecisionChannel;
  comment: string | null;
  decided_at: string;
  /** HMAC under the relays' decision key (src/adapters/team/decision-seal.ts); null on rows written without one. */
  mac: string | null;
}

/** One person's approval toward a request's requirement, as `approval_votes` holds it. */
export interface VoteRow {
  incident_id: string;
  requested_at: string;
  by_name: string;
  channel: DecisionChannel;
  voted_at: string;
  mac: string | null;
}

/** Who holds a relay id now, when another start asks for it. */
export interface RelayIdHolder {
  name: string;
  heartbeat_at: Date;
  age_s: number;
}

export type Queryable = Pick<pg.Pool, 'query'>;

/** The team's SQL (one object, as team/* uses it): the relays, the incidents' ownership, and people's recorded actions. */
export function teamRepository(db: Queryable) {
  return { ...relaysSql(db), ...ownershipSql(db), ...humanActionsSql(db) };
}

export type TeamRepository = ReturnType<typeof teamRepository>;

/** The `relays` table: who is alive, who holds a relay id, how the team stands. */
function relaysSql(db: Queryable) {
  return {
    /** This relay is alive (and not stopped): other relays leave its incidents alone. */
    async heartbeat(relayId: string, name: string): Promise<void> {
      await db.query(
        `INSERT INTO relays (relay_id, name) VALUES ($1, $2)
         ON CONFLICT (relay_id) DO UPDATE SET heartbeat_at = now(), stopped = false`,
        [relayId, name],
      );
    },

    /**
     * Takes `relayId` for this start unless a live relay holds it (not stopped, its heartbeat within
     * the lease): then nothing is written and the holder is returned. One statement, so of two
     * relays starting at once with the same id exactly one gets it.
     */
    async claimRelayId(relayId: string, name: string, leaseSeconds: number): Promise<RelayIdHolder | undefined> {
      const res = await db.query(
        `INSERT INTO relays (relay_id, name) VALUES ($1, $2)
         ON CONFLICT (relay_id) DO UPDATE SET name = EXCLUDED.name, started_at = now(), heartbeat_at = now(), stopped = false
           WHERE relays.stopped OR relays.heartbeat_at < now() - make_interval(secs => $3)
         RETURNING relay_id`,
        [relayId, name, leaseSeconds],
      );
      if (res.rowCount === 1) return undefined;
      const held = await db.query<RelayIdHolder>('SELECT name, heartbeat_at, extract(epoch FROM now() - heartbeat_at)::float8 AS age_s FROM relays WHERE relay_id = $1', [relayId]);
      return held.rows[0] ?? { name: 'unknown', heartbeat_at: new Date(), age_s: 0 };
    },

    /** A clean stop: the others adopt this relay's incidents at their next heartbeat. */
    async markStopped(relayId: string): Promise<void> {
      await db.query('UPDATE relays SET stopped = true WHERE relay_id = $1', [relayId]);
    },

    /** For /health/deep: the schema's version and how many relays are alive. */
    async teamHealth(leaseSeconds: number): Promise<{ version: number | undefined; live: number | undefined }> {
      const res = await db.query<{ version: number; live: number }>(
        `SELECT (SELECT max(version) FROM schema_migrations) AS version,
                (SELECT count(*)::int FROM relays WHERE NOT stopped AND heartbeat_at > now() - make_interval(secs => $1)) AS live`,
        [leaseSeconds],
      );
      return { version: res.rows[0]?.version, live: res.rows[0]?.live };
    },
  };
}

/** Who owns and delivers an incident, and the new-incident lock's one round trip. */
function ownershipSql(db: Queryable) {
  return {
    /**
     * Open incidents owned by no live relay (its heartbeat older than the lease, stopped, or never
     * seen) become `relayId`'s, at most 100 a call, each under a row lock skipped when held.
     */
    async adoptFromDead(relayId: string, leaseSeconds: number): Promise<Array<{ incident_id: string; owner: string }>> {
      const res = await db.query<{ incident_id: string; owner: string }>(
        `WITH taken AS (
           SELECT i.incident_id, i.owner FROM incidents i
            WHERE NOT i.terminal AND i.owner <> $1
              AND NOT EXISTS (SELECT 1 FROM relays r WHERE r.relay_id = i.owner AND NOT r.stopped AND r.heartbeat_at >= now() - make_interval(secs => $2))
            ORDER BY i.created_at LIMIT 100 FOR UPDATE OF i SKIP LOCKED
         )
         UPDATE incidents SET owner = $1 FROM taken WHERE incidents.incident_id = taken.incident_id
         RETURNING incidents.incident_id, taken.owner`,
        [relayId, leaseSeconds],
      );
      return res.rows;
    },

    /**
     * Takes a queued incident for delivery: exactly one relay gets `true`. A row locked for a moment
     * (a repeat folded in elsewhere) is waited for, then the same conditions decide.
     */
    async claimDelivery(incidentId: string, relayId: string): Promise<boolean> {
      const res = await db.query(
        `UPDATE incidents SET owner = $2 WHERE incident_id = (
           SELECT incident_id FROM incidents WHERE incident_id = $1 AND state = 'queued' AND owner = $2 FOR UPDATE SKIP LOCKED
         ) RETURNING incident_id`,
        [incidentId, relayId],
      );
      if (res.rowCount === 1) return true;
      const waited = await db.query(`UPDATE incidents SET owner = $2 WHERE incident_id = $1 AND state = 'queued' AND owner = $2 RETURNING incident_id`, [incidentId, relayId]);
      return waited.rowCount === 1;
    },

    /** Incidents a relay may have missed changes of while its listener was away: open, or changed in the last hour. */
    async recentIncidentIds(since: Date): Promise<string[]> {
      const res = await db.query<{ incident_id: string }>('SELECT incident_id FROM incidents WHERE NOT terminal OR updated_at > $1', [since.toISOString()]);
      return res.rows.map((r) => r.incident_id);
    },

    /**
     * On a held connection: opens a transaction, takes the fault's new-incident lock (`keys`) and
     * reads the fault's open incident, if another relay made one, in one round trip (every new fault pays for it, and on a loaded
     * machine each round trip costs a relay more than the work it carries). Several statements go
     * only in the simple protocol, without parameters: the keys are integers and the fault key a
     * literal escaped by the driver. The wait has timeouts of its own, the server's
     * (`lock_timeout`, before the statement's) and the driver's (`driverTimeoutMs`).
     */
    async lockFault(keys: readonly [number, number], dedupKey: string, lockWaitMs: number, driverTimeoutMs: number): Promise<string[]> {
      const [k1, k2] = keys.map((k) => Math.trunc(k));
      const wait = Math.max(1, Math.trunc(lockWaitMs));
      const text = `BEGIN; SET LOCAL statement_timeout = ${wait + 1_000}; SET LOCAL lock_timeout = ${wait};
        SELECT pg_advisory_xact_lock(${k1}, ${k2});
        SELECT incident_id FROM incidents WHERE dedup_key = ${pg.escapeLiteral(dedupKey)} AND NOT terminal`;
      const results = (await db.query({ text, query_timeout: driverTimeoutMs } as pg.QueryConfig)) as unknown as pg.QueryResult<{ incident_id: string }>[];
      return (results.at(-1)?.rows ?? []).map((r) => r.incident_id);
    },
  };
}

/** Decisions and approvals recorded once (the first decision wins; each person's approval counts once), and their NOTIFY. */
function humanActionsSql(db: Queryable) {
  return {
    /** Records a decision unless one was recorded for that request already; true when this one is first. */
    async recordDecision(row: DecisionRow & { received_by: string }): Promise<boolean> {
      const res = await db.query(
        `INSERT INTO decisions (incident_id, requested_at, decision, by_name, channel, comment, decided_at, received_by, mac)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
        [row.incident_id, row.requested_at, row.decision, row.by_name, row.channel, row.comment, row.decided_at, row.received_by, row.mac],
      );
      return res.rowCount === 1;
    },

    /** Removes a row that failed its MAC (only that row: a real one written meanwhile stays). */
    async dropDecision(row: Pick<DecisionRow, 'incident_id' | 'requested_at' | 'mac'>): Promise<void> {
      await db.query('DELETE FROM decisions WHERE incident_id = $1 AND requested_at = $2 AND mac IS NOT DISTINCT FROM $3', [row.incident_id, row.requested_at, row.mac]);
    },

    async decisionFor(incidentId: string, requestedAt: string): Promise<DecisionRow | undefined> {
      const res = await db.query<DecisionRow>('SELECT * FROM decisions WHERE incident_id = $1 AND requested_at = $2', [incidentId, requestedAt]);
      return res.rows[0];
    },

    /** Decisions recorded for `relayId`'s incidents that still wait on their current request (a NOTIFY lost). */
    async waitingDecisions(relayId: string): Promise<DecisionRow[]> {
      const res = await db.query<DecisionRow>(
        `SELECT d.* FROM decisions d JOIN incidents i ON i.incident_id = d.incident_id
          WHERE i.owner = $1 AND i.state = 'awaiting_approval' AND i.doc->'approval_request'->>'requested_at' = d.requested_at`,
        [relayId],
      );
      return res.rows;
    },

    /**
     * Counts one person's approval, once: the vote's insert and the tally's raise are one statement,
     * so the tally is raised only for a new vote and two votes at once are serialized on the tally row.
     * `given` is the count with this vote; null when this person's vote was counted already.
     */
    async recordVote(row: VoteRow & { received_by: string }): Promise<number | null> {
      const res = await db.query<{ given: number }>(
        `WITH vote AS (
           INSERT INTO approval_votes (incident_id, requested_at, by_name, channel, voted_at, received_by, mac)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING 1
         )
         INSERT INTO approval_tallies (incident_id, requested_at, given) SELECT $1, $2, 1 FROM vote
         ON CONFLICT (incident_id, requested_at) DO UPDATE SET given = approval_tallies.given + 1
         RETURNING given`,
        [row.incident_id, row.requested_at, row.by_name, row.channel, row.voted_at, row.received_by, row.mac],
      );
      return res.rows[0]?.given ?? null;
    },

    /** The votes counted for a request, in the order they were cast. */
    async votesFor(incidentId: string, requestedAt: string): Promise<VoteRow[]> {
      const res = await db.query<VoteRow>('SELECT * FROM approval_votes WHERE incident_id = $1 AND requested_at = $2 ORDER BY voted_at, by_name', [incidentId, requestedAt]);
      return res.rows;
    },

    async notify(channel: string, payload: unknown): Promise<void> {
      await db.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify(payload)]);
    },
  };
}
