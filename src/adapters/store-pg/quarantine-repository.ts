import { QuarantineEntry, quarantineKey, type QuarantineBackend } from '../../core/quarantine/entry';
import type { Queryable } from './team-repository';

const COLUMNS = 'device, reason, since, incident_id, change_id';

/**
 * The team's quarantines (`quarantined_devices`): every relay reads the same rows before any change.
 * Each clear that lifted one is kept (`quarantine_clears`, the latest per device), so a quarantine a
 * relay writes late (decided while the database was away) does not outlive a person's clear made after it.
 */
export function pgQuarantine(db: Queryable): QuarantineBackend {
  const entry = (row: Record<string, unknown>) => QuarantineEntry.parse(row);
  return {
    async load() {
      const res = await db.query(`SELECT ${COLUMNS} FROM quarantined_devices ORDER BY since`);
      return res.rows.map(entry);
    },
    async add(e, opts) {
      const key = quarantineKey(e.device);
      // Late: only when no person cleared the device after it was decided (times are the relays' ISO strings).
      const res = await db.query(
        `INSERT INTO quarantined_devices (device_key, device, reason, since, incident_id, change_id)
         SELECT $1, $2, $3, $4, $5, $6
          WHERE NOT $7::boolean OR NOT EXISTS (SELECT 1 FROM quarantine_clears WHERE device_key = $1 AND cleared_at > $4)
         ON CONFLICT (device_key) DO NOTHING RETURNING device`,
        [key, e.device, e.reason, e.since, e.incident_id, e.change_id, opts?.late === true],
      );
      if (res.rowCount === 1) return { entry: e, added: true };
      const held = await db.query(`SELECT ${COLUMNS} FROM quarantined_devices WHERE device_key = $1`, [key]);
      if (held.rows[0]) return { entry: entry(held.rows[0]), added: false };
      if (opts?.late) {
        const clear = await db.query<{ at: string; by: string }>('SELECT cleared_at AS at, cleared_by AS by FROM quarantine_clears WHERE device_key = $1 AND cleared_at > $2', [key, e.since]);
        if (clear.rows[0]) return { clearedAfter: clear.rows[0] };
      }
      // Cleared between the two statements: this one is the quarantine now.
      return this.add(e, opts);
    },
    async remove(device, clear) {
      const res = await db.query(
        `WITH lifted AS (DELETE FROM quarantined_devices WHERE device_key = $1 RETURNING ${COLUMNS}),
              kept AS (INSERT INTO quarantine_clears (device_key, cleared_at, cleared_by) SELECT $1, $2, $3 FROM lifted WHERE $2::text IS NOT NULL
                       ON CONFLICT (device_key) DO UPDATE SET cleared_at = GREATEST(quarantine_clears.cleared_at, EXCLUDED.cleared_at), cleared_by = CASE WHEN EXCLUDED.cleared_at > quarantine_clears.cleared_at THEN EXCLUDED.cleared_by ELSE quarantine_clears.cleared_by END)
         SELECT ${COLUMNS} FROM lifted`,
        [quarantineKey(device), clear?.at ?? null, clear?.by ?? null],
      );
      return res.rows[0] ? entry(res.rows[0]) : undefined;
    },
  };
}
