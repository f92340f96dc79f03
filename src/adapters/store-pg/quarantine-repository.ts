import { QuarantineEntry, quarantineKey, type QuarantineBackend } from '../../core/quarantine/entry';
import type { Queryable } from './team-repository';

/** The team's quarantines (`quarantined_devices`): every relay reads the same rows before any change. */
export function pgQuarantine(db: Queryable): QuarantineBackend {
  const entry = (row: Record<string, unknown>) => QuarantineEntry.parse(row);
  return {
    async load() {
      const res = await db.query('SELECT device, reason, since, incident_id, change_id FROM quarantined_devices ORDER BY since');
      return res.rows.map(entry);
    },
    async add(e) {
      const res = await db.query(
        `INSERT INTO quarantined_devices (device_key, device, reason, since, incident_id, change_id) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (device_key) DO NOTHING RETURNING device`,
        [quarantineKey(e.device), e.device, e.reason, e.since, e.incident_id, e.change_id],
      );
      if (res.rowCount === 1) return { entry: e, added: true };
      const held = await db.query('SELECT device, reason, since, incident_id, change_id FROM quarantined_devices WHERE device_key = $1', [quarantineKey(e.device)]);
      // Cleared between the two statements: this one is the quarantine now.
      return held.rows[0] ? { entry: entry(held.rows[0]), added: false } : this.add(e);
    },
    async remove(device) {
      const res = await db.query('DELETE FROM quarantined_devices WHERE device_key = $1 RETURNING device, reason, since, incident_id, change_id', [quarantineKey(device)]);
      return res.rows[0] ? entry(res.rows[0]) : undefined;
    },
  };
}
