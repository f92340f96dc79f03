import type pg from 'pg';
import type { Logger } from 'pino';
import type { Incident, TimelineEntry } from '../../core/incidents/model';
import type { IncidentStore } from '../../core/incidents/store';

/* The team store's contract (pg-store.ts makes it): what the relay and its coordinator call. */

/** A change another relay made, as this relay's memory now holds it. */
export interface RemoteChange {
  incident: Incident;
  previous: Incident | undefined;
  /** Timeline entries written by other relays that this relay had not seen. */
  entries: TimelineEntry[];
  /** This relay ran the incident and another has taken it over (this one was thought dead). */
  lostOwnership?: boolean;
}

export interface SharedIncidentStore extends IncidentStore {
  readonly relayId: string;
  readonly idTag: string;
  readonly pool: pg.Pool;
  /** The relay that runs this incident (alone writes its record), as last seen. */
  ownerOf(incidentId: string): string | undefined;
  /** Reads incidents other relays changed into memory; returns what changed, for the bus. */
  refresh(incidentIds: readonly string[]): Promise<RemoteChange[]>;
  /** Another relay's incident is now this relay's: memory follows the database. */
  adopted(incident: Incident): void;
  /** Counts another relay's commit left in the database (its notice's `c`), taken without a read. */
  countsChanged(notice: Readonly<Record<string, unknown>>): RemoteChange[];
  /**
   * Who reads back incidents the database changed under this relay's writes (its memory was a
   * step behind, or a new incident of its own was folded into another relay's): the team
   * coordinator, which also tells the bus. Without one they are read back silently. A commit
   * that folded an incident waits for its handler: memory shows the survivor when flush resolves.
   */
  onStale(handler: (incidentIds: string[]) => Promise<void>): void;
}

export interface PgStoreOptions {
  pool: pg.Pool;
  relayId: string;
  retention: number;
  logger: Logger;
  /** How long a lazy write (a duplicate) may wait to share a commit with others. */
  lazyFlushMs?: number;
  /** Finished incidents whose timelines stay in memory for the synchronous readers. */
  recentTimelines?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}
