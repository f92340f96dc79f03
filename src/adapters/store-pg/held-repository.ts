import { HeldRequest, isQuarantineWait, type HeldRequests } from '../../core/approvals/held-requests';
import type { Queryable } from './team-repository';

/** The team's held requests (`held_requests`): the relay that owns the incident asks it when what it waits for is over. */
export function pgHeldRequests(db: Queryable): HeldRequests {
  return {
    async load() {
      const res = await db.query('SELECT incident_id, input, waiting_for_incident, waiting_for_change, waiting_for_quarantine, held_at FROM held_requests ORDER BY held_at');
      return res.rows.map((r: Record<string, unknown>) =>
        HeldRequest.parse({
          incident_id: r.incident_id,
          input: r.input,
          waiting_for: r.waiting_for_quarantine ?? { incident_id: r.waiting_for_incident, change_id: r.waiting_for_change },
          held_at: r.held_at,
        }),
      );
    },
    async put(h) {
      const w = h.waiting_for;
      const [incident, change, quarantine] = isQuarantineWait(w) ? [null, null, JSON.stringify(w)] : [w.incident_id, w.change_id, null];
      await db.query(
        `INSERT INTO held_requests (incident_id, input, waiting_for_incident, waiting_for_change, waiting_for_quarantine, held_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (incident_id) DO UPDATE SET input = EXCLUDED.input, waiting_for_incident = EXCLUDED.waiting_for_incident, waiting_for_change = EXCLUDED.waiting_for_change,
           waiting_for_quarantine = EXCLUDED.waiting_for_quarantine, held_at = EXCLUDED.held_at`,
        [h.incident_id, JSON.stringify(h.input), incident, change, quarantine, h.held_at],
      );
    },
    async remove(id) {
      await db.query('DELETE FROM held_requests WHERE incident_id = $1', [id]);
    },
  };
}
