import type { Incident, TimelineEntry } from './model';

/** What /health/deep and the intake know of the store: a database that went away shows here. */
export interface StoreHealth {
  backend: 'file' | 'memory' | 'postgresql';
  ok: boolean;
  /** Writes accepted but not yet durable (the database is away or slow). */
  pending_writes: number;
  error?: string;
  /** Writes the database refused for what they held since start: set aside, the rest committed. */
  refused_writes?: number;
  /** The last of those: which incident, and the database's reason. */
  last_refused?: string;
}

/** /health/deep's store check: the health above, and for a database a live round trip. */
export interface StoreCheck extends StoreHealth {
  latency_ms?: number;
  /** The database, password hidden. */
  url?: string;
  schema_version?: number;
  /** Team relays on this database with a fresh heartbeat. */
  live_relays?: number;
}

/**
 * Where incidents live. Reads are served from memory (the index, and the timelines of open
 * incidents), so the relay's hot paths stay synchronous whichever backend is behind them;
 * `flush` is the durability point for backends that write behind (PostgreSQL).
 */
export interface IncidentStore {
  get(incidentId: string): Incident | undefined;
  /** Newest first. */
  list(): Incident[];
  /** Every stored incident in no particular order, without the sort `list` makes (paging, snapshots). */
  values?(): Iterable<Incident>;
  /**
   * Insert or replace. `lazy` writes may be coalesced for a moment (a duplicate storm): use it
   * only for what the timeline also records.
   */
  put(incident: Incident, opts?: { lazy?: boolean }): void;
  appendTimeline(incidentId: string, entry: TimelineEntry): void;
  /** The timeline as held in memory: complete for open incidents and recently finished ones. */
  timeline(incidentId: string): TimelineEntry[];
  /** The complete timeline of any stored incident, read from the backend. */
  loadTimeline(incidentId: string): Promise<TimelineEntry[]>;
  /** Resolves when every write made so far is durable; rejects with StoreUnavailableError when it cannot be. */
  flush(): Promise<void>;
  health(): StoreHealth;
  /** A live check for /health/deep (a database round trip); the health above when there is nothing to ask. */
  probe?(): Promise<StoreCheck>;
  /**
   * Team relays: this relay's tag, unique among the relays on the database, carried by the ids
   * of the incidents it creates (src/core/incidents/ids.ts) so no two relays make the same id.
   */
  readonly idTag?: string;
  /** Ids not in memory that a new incident must not take (the database holds them, or did). */
  idTaken?(incidentId: string): boolean;
  /** Writes are made durable by `flush`, not when they return: the intake awaits it before its 202. */
  readonly writesBehind?: boolean;
  /** Flushes anything written lazily and lets go of connections. */
  close(): Promise<void>;
}

/** The order `list()` returns: newest first, ties by id, whichever backend holds them. */
export const newestFirst = (a: Incident, b: Incident) => b.created_at.localeCompare(a.created_at) || b.incident_id.localeCompare(a.incident_id);

/** The store could not make a write durable: the intake answers 503 and the sender retries. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** The part of `conf` / `electron-store` the store uses, so either can be passed in. */
export interface KeyValueBackend {
  get(key: string): unknown;
  /** `stamp`: the files backend seals a list with it (src/core/incidents/file-seal.ts); others ignore it. */
  set(key: string, value: unknown, stamp?: string): void;
  /** Replaces the whole file with `{key: list}` without blocking the event loop for long (the files backend); the bytes written. */
  setList?(key: string, list: readonly unknown[], stamp?: string): Promise<number>;
  /** The stamp `key`'s list was sealed with, when the file read at start is exactly what was sealed; else undefined. */
  sealOf?(key: string): string | undefined;
}
