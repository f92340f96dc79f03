import type { Logger } from 'pino';
import type { Incidents } from '../../core/incidents/service';
import { entries } from '../../core/events/timeline-entries';

export type SealedKind = 'decision' | 'confirm';

/** Rows remembered as reported: the heartbeat's sweep meets the same row again and again. */
const MAX_REMEMBERED = 1_000;

/**
 * What the owner does with a decision or confirm row whose MAC does not verify: nothing is
 * applied, and it says so once per row, in the incident's timeline, in the log, and as a standing
 * warning on /health. The row's own words (its person, its comment) are not repeated anywhere:
 * nobody vouches for them.
 */
export function createForgedRows(deps: { incidents: Pick<Incidents, 'get' | 'record'>; logger: Logger }) {
  const seen = new Set<string>();
  let count = 0;
  let last: { kind: SealedKind; incident_id: string; at: string } | undefined;

  return {
    /** `owner`: this relay owns the incident, so it alone writes the line to its timeline. */
    report(kind: SealedKind, incidentId: string, key: string, mac: string | null, owner: boolean): void {
      const id = JSON.stringify([kind, incidentId, key, mac]);
      if (seen.has(id)) return;
      if (seen.size >= MAX_REMEMBERED) seen.delete(seen.values().next().value as string);
      seen.add(id);
      count += 1;
      last = { kind, incident_id: incidentId, at: new Date().toISOString() };
      const what = kind === 'decision' ? 'A decision' : 'A confirm';
      deps.logger.error({ incident_id: incidentId, kind, key }, `${what} row in the team database failed its MAC check: ignored, nothing applied`);
      if (!owner || !deps.incidents.get(incidentId)) return;
      deps.incidents.record(
        incidentId,
        kind === 'decision' ? entries.decisionForged : entries.confirmForged,
        `${what} found in the team database for ${kind === 'decision' ? 'this approval request' : `change ${key}`} failed its integrity check (not signed with this team's TEAM_DECISION_KEY): ignored, nothing applied`,
        { kind, key },
      );
    },
    /** The standing warning for /health while any such row has been seen since the relay started. */
    warnings(): string[] {
      if (!last) return [];
      return [
        `${count} decision or confirm row(s) in the team database failed their MAC check and were ignored, nothing applied (last: a ${last.kind} on ${last.incident_id} at ${last.at}). Someone with access to the database wrote or altered them, or TEAM_DECISION_KEY differs between the relays.`,
      ];
    },
  };
}

export type ForgedRows = ReturnType<typeof createForgedRows>;
