import type pg from 'pg';
import { isTerminal, type TimelineEntry } from '../../core/incidents/model';
import type { PgMemory } from './pg-memory';
import type { RepeatCounts } from './repeat-counts';
import { readEntry, readIncidents, readRow } from './repository';
import type { RemoteChange } from './pg-store-types';

/**
 * Reads these incidents back from the database into memory (another relay changed them, or wrote
 * lines to their timelines), and says what changed for each.
 */
export async function readRemoteChanges(deps: { pool: pg.Pool; me: string; memory: PgMemory; counts: RepeatCounts }, incidentIds: readonly string[]): Promise<RemoteChange[]> {
  const { pool, me, memory, counts } = deps;
  const { index, owners } = memory;
  if (incidentIds.length === 0) return [];
  const { rows, lines } = await readIncidents(pool, [...new Set(incidentIds)], me);
  const changes: RemoteChange[] = [];
  for (const row of rows) {
    const fromDb = readRow(row);
    if (!fromDb) continue;
    const previous = index.get(row.incident_id);
    const mine = row.owner === me && previous !== undefined;
    memory.persisted.add(row.incident_id);
    // Repeats counted here and not yet committed stay counted on top of the database's total.
    const occurrences = counts.countFrom(row.incident_id, fromDb.occurrences);
    // This relay's own record is the truth for what it owns; repeats folded elsewhere only add to the count.
    const incident = mine
      ? { ...previous, occurrences, last_seen: previous.last_seen > fromDb.last_seen ? previous.last_seen : fromDb.last_seen }
      : { ...fromDb, occurrences };
    const lostOwnership = owners.get(row.incident_id) === me && row.owner !== me;
    index.set(row.incident_id, incident);
    owners.set(row.incident_id, row.owner);
    if (!previous && isTerminal(incident.state)) memory.finishedNow(row.incident_id);
    else if (previous && !isTerminal(previous.state) && isTerminal(incident.state)) memory.finishedNow(row.incident_id);
    const entries: TimelineEntry[] = [];
    const held = !isTerminal(incident.state) || memory.timelines.has(row.incident_id) ? memory.holdTimeline(row.incident_id) : undefined;
    for (const r of lines) {
      if (r.incident_id !== row.incident_id || held?.remote.has(r.seq)) continue;
      const entry = readEntry(r.entry);
      if (!entry) continue;
      held?.remote.add(r.seq);
      held?.entries.push(entry);
      entries.push(entry);
    }
    const same = previous && JSON.stringify(previous) === JSON.stringify(incident);
    if (!same || entries.length || lostOwnership) changes.push({ incident, previous, entries, ...(lostOwnership ? { lostOwnership } : {}) });
  }
  return changes;
}
