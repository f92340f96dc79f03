import type { Logger } from 'pino';
import type { TimelineEntry } from '../../core/incidents/model';
import { escapedText } from '../../core/incidents/storable-text';
import { entries } from '../../core/events/timeline-entries';
import type { SetAside } from './isolate';
import type { createJournal } from './journal';
import type { PgMemory } from './pg-memory';
import type { RepeatCounts } from './repeat-counts';
import type { Batch, Written } from './write-batch';

export interface JournalOutcomesDeps {
  me: string;
  logger: Logger;
  memory: PgMemory;
  counts: RepeatCounts;
  /** Incidents with a write queued that changes more than their count and last sighting. */
  recordChanged: Set<string>;
  journal: () => ReturnType<typeof createJournal>;
  /** Reads these incidents back and tells the relay (on a team, over the bus). */
  readBack(incidentIds: string[]): Promise<void>;
}

/** What memory does with what the journal committed, and with a write the database refused. */
export function createJournalOutcomes(deps: JournalOutcomesDeps) {
  const { me, logger, memory, counts, recordChanged } = deps;
  const { index } = memory;

  /**
   * This relay's new incident met another relay's open one for the same fault (it was created
   * while this relay could not reach the database): it is dropped here, and what it counted since
   * its record was taken goes to the survivor, which memory reads back.
   */
  function foldedAway(id: string, into: string) {
    logger.warn({ incident_id: id, folded_into: into }, 'another relay had opened this fault while the database was out of reach: incident folded into its one');
    const left = counts.take(id);
    memory.dropped(id);
    if (left !== 0) {
      counts.add(into, left);
      deps.journal().bump(into);
    }
  }

  return {
    /**
     * A write the database refused for what it holds (the rest of its batch was committed): a new
     * incident it never stored is let go of (its alert was answered 503); a known one says so on
     * its timeline, and keeps its repeats queued.
     */
    setAside(write: SetAside) {
      const id = write.incidentId;
      if (!id || !index.has(id)) return;
      if (write.insert) return memory.dropped(id);
      const what = write.batch.puts.size ? 'its record' : write.batch.appends.length ? 'a line of its timeline' : 'its repeat count';
      const entry: TimelineEntry = {
        at: new Date().toISOString(),
        type: entries.storeWriteRefused.name,
        message: `The incident database refused to store ${what} (${escapedText(write.reason)}): that write was set aside, the relay's other writes were committed`,
      };
      memory.holdTimeline(id).entries.push(entry);
      deps.journal().append(id, entry);
      if (counts.added.has(id)) deps.journal().bump(id);
    },

    /** Memory takes what the batch wrote: the database's counts, and its folds. */
    committed(batch: Batch, written: Written): Promise<void> | undefined {
      // Repeats counted here since the batch was taken stay on top of the database's count.
      counts.committed(batch.added);
      for (const [id, total] of written.totals) {
        memory.persisted.add(id);
        const now = index.get(id);
        // A total another relay's notice or a read brought meanwhile may be the later one.
        const occurrences = counts.settled(id, total);
        if (now && now.occurrences !== occurrences) index.set(id, { ...now, occurrences });
      }
      for (const fold of written.folds) foldedAway(fold.from.incident_id, fold.into);
      for (const id of written.collisions) memory.dropped(id);
      if (written.missing.length) logger.warn({ incident_ids: written.missing }, 'updates of incidents the database no longer holds (removed by retention) were not written');
      // Read back, and told on the bus: incidents written here without owning them, and the survivors of folds.
      // Not another relay's incident this one only counted repeats of, knowing whose it is: nothing it wrote was refused.
      const stale = [...new Set([...written.foreign.filter((id) => recordChanged.has(id) || memory.owners.get(id) === me), ...written.folds.map((f) => f.into)])];
      for (const id of batch.puts.keys()) if (!deps.journal().queued(id)) recordChanged.delete(id);
      if (!stale.length) return undefined;
      const read = deps.readBack(stale);
      // A fold (rare) is waited for, so the relay's next answer already counts on the survivor; a
      // foreign write (every repeat folded by a relay that does not run the incident) is not.
      return written.folds.length ? read.catch(() => {}) : void read.catch(() => {});
    },
  };
}
