import type { Incident, TimelineEntry } from '../../core/incidents/model';
import { batchSize } from './isolate';
import type { Batch } from './write-batch';

export interface WriteQueueOptions {
  /** Incidents the database holds: their puts are updates, the rest inserts. */
  persisted: ReadonlySet<string>;
  /** Repeats counted here and not yet committed, per incident (the store's; read when a batch is taken). */
  added: ReadonlyMap<string, number>;
  /** Whether a queued put changes only the count and last sighting (read when a batch is taken). */
  countOnly(incidentId: string): boolean;
}

/**
 * The journal's writes not yet durable: those queued (puts coalesced per incident, timeline lines
 * in order, evictions, count increments) and those of the batch being committed right now.
 */
export function createWriteQueue(opts: WriteQueueOptions) {
  let puts = new Map<string, Incident>();
  let appends: { incident_id: string; entry: TimelineEntry }[] = [];
  let evictions = new Set<string>();
  let bumps = new Set<string>();
  /** Writes of the batch being committed right now: still not durable. */
  let committing = 0;
  /** The batch being committed right now, until memory has taken what it wrote. */
  let inFlight: Batch | undefined;

  return {
    put: (incident: Incident) => puts.set(incident.incident_id, incident),
    append: (incidentId: string, entry: TimelineEntry) => appends.push({ incident_id: incidentId, entry }),
    evict: (incidentId: string) => evictions.add(incidentId),
    bump: (incidentId: string) => bumps.add(incidentId),
    forget(incidentId: string) {
      puts.delete(incidentId);
      bumps.delete(incidentId);
      appends = appends.filter((a) => a.incident_id !== incidentId);
    },
    queued: (incidentId: string) => puts.has(incidentId),
    pendingCount: () => puts.size + appends.length + evictions.size + bumps.size + committing,
    /** Everything queued, as the batch now being committed. */
    take(): Batch {
      const counted = [...puts.keys(), ...bumps];
      const batch: Batch = {
        puts,
        appends,
        evictions,
        bumps,
        persisted: opts.persisted,
        countOnly: new Set([...puts.keys()].filter((id) => opts.persisted.has(id) && opts.countOnly(id))),
        added: new Map(counted.flatMap((id) => (opts.added.has(id) ? [[id, opts.added.get(id) as number] as const] : []))),
      };
      puts = new Map();
      appends = [];
      evictions = new Set();
      bumps = new Set();
      committing = batchSize(batch);
      inFlight = batch;
      return batch;
    },
    /** The batch (or the part of it) memory is taking in now, or none. */
    flying(batch: Batch | undefined) {
      inFlight = batch;
    },
    inFlight: () => inFlight,
    /** These writes of the batch are durable (or set aside). */
    landed(unit?: Batch) {
      committing = unit ? committing - batchSize(unit) : 0;
    },
    /** A failed batch goes back in front of anything written since, so order is kept. */
    restore(batch: Batch) {
      committing = 0;
      for (const [id, incident] of puts) batch.puts.set(id, incident);
      puts = batch.puts;
      appends = [...batch.appends, ...appends];
      evictions = new Set([...batch.evictions, ...evictions]);
      bumps = new Set([...batch.bumps, ...bumps]);
    },
  };
}
export type WriteQueue = ReturnType<typeof createWriteQueue>;
