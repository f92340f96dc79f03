import type { Queryable } from './team-repository';

/**
 * The `confirms` table: a person's confirm of a provisional change, recorded by whichever relay it
 * reached. The first confirm of a change wins; the relay that owns the incident applies it and
 * writes the result here, where the relay that took the request reads it to answer its caller.
 */
export interface ConfirmRow {
  incident_id: string;
  change_id: string;
  by_name: string;
  requested_at: string;
  received_by: string;
  /** The owner's answer (a ConfirmResult as JSON), once applied. */
  result: unknown;
  applied_at: string | null;
  /** HMAC under the relays' decision key (src/adapters/team/decision-seal.ts); null on rows written without one. */
  mac: string | null;
  /** The owner's HMAC over its answer (result and applied_at). */
  result_mac: string | null;
}

export function confirmRepository(db: Queryable) {
  return {
    /** Records the confirm unless one was recorded for that change already; true when this one is first. */
    async record(row: Pick<ConfirmRow, 'incident_id' | 'change_id' | 'by_name' | 'requested_at' | 'received_by' | 'mac'>): Promise<boolean> {
      const res = await db.query(
        `INSERT INTO confirms (incident_id, change_id, by_name, requested_at, received_by, mac) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
        [row.incident_id, row.change_id, row.by_name, row.requested_at, row.received_by, row.mac],
      );
      return res.rowCount === 1;
    },
    /** Removes a row that failed its MAC (only that row: a real one written meanwhile stays). */
    async drop(row: Pick<ConfirmRow, 'incident_id' | 'change_id' | 'mac'>): Promise<void> {
      await db.query('DELETE FROM confirms WHERE incident_id = $1 AND change_id = $2 AND mac IS NOT DISTINCT FROM $3', [row.incident_id, row.change_id, row.mac]);
    },
    async get(incidentId: string, changeId: string): Promise<ConfirmRow | undefined> {
      const res = await db.query<ConfirmRow>('SELECT * FROM confirms WHERE incident_id = $1 AND change_id = $2', [incidentId, changeId]);
      return res.rows[0];
    },
    /**
     * The owner's answer; written once. `replacing`: the answer already there failed its MAC (nobody
     * of the team wrote it), so this one takes its place.
     */
    async settle(row: Pick<ConfirmRow, 'incident_id' | 'change_id' | 'applied_at' | 'result_mac'> & { result: unknown }, replacing = false): Promise<void> {
      await db.query(`UPDATE confirms SET result = $3, applied_at = $4, result_mac = $5 WHERE incident_id = $1 AND change_id = $2 AND (applied_at IS NULL OR $6)`, [
        row.incident_id,
        row.change_id,
        JSON.stringify(row.result),
        row.applied_at,
        row.result_mac,
        replacing,
      ]);
    },
    /**
     * Confirms of `relayId`'s open incidents (the caller skips those answered with a verified MAC):
     * the safety net for a NOTIFY lost while the listener reconnected.
     */
    async waiting(relayId: string): Promise<ConfirmRow[]> {
      const res = await db.query<ConfirmRow>(`SELECT c.* FROM confirms c JOIN incidents i ON i.incident_id = c.incident_id WHERE i.owner = $1 AND NOT i.terminal`, [relayId]);
      return res.rows;
    },
  };
}

export type ConfirmRepository = ReturnType<typeof confirmRepository>;
