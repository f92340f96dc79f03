import type { Batch } from './write-batch';

/**
 * Whether the database refused what a write holds, not the write itself: bad data (a NUL or a
 * lone surrogate in `jsonb`, a value out of range), a constraint, a row too large. Sent again as
 * it is, it is refused again; a connection lost or a timeout is not this.
 */
export function isRefusedWrite(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^(22|23|54)/.test(code);
}

/** A write the database refused and the journal set aside, with the database's reason. */
export interface SetAside {
  batch: Batch;
  /** The incident it was about, when it was one incident's. */
  incidentId: string | undefined;
  /** The incident had never been stored: its insert was the write refused. */
  insert: boolean;
  reason: string;
}

/** Writes the database refused, set aside so the rest were committed: the store is told, and the caller. */
export class WriteRefusedError extends Error {
  override readonly name = 'WriteRefusedError';
}

const empty = (batch: Batch): Batch => ({ ...batch, puts: new Map(), appends: [], evictions: new Set(), bumps: new Set(), added: new Map(), countOnly: new Set() });

function unit(batch: Batch, part: Partial<Pick<Batch, 'puts' | 'appends' | 'evictions' | 'bumps'>>): Batch {
  const out = { ...empty(batch), ...part };
  const ids = new Set([...out.puts.keys(), ...out.bumps]);
  out.added = new Map([...batch.added].filter(([id]) => ids.has(id)));
  out.countOnly = new Set([...batch.countOnly].filter((id) => out.puts.has(id)));
  return out;
}

/**
 * A refused batch as writes that can be committed alone, in an order that keeps the batch's
 * meaning: known incidents' records first (an ended incident before its fault's next one), each
 * new incident with its own timeline lines, every other line in its order, repeats, evictions.
 */
export function splitBatch(batch: Batch): Batch[] {
  const units: Batch[] = [];
  const puts = [...batch.puts.values()];
  for (const doc of puts.filter((d) => batch.persisted.has(d.incident_id))) units.push(unit(batch, { puts: new Map([[doc.incident_id, doc]]) }));
  const inserted = new Set<string>();
  for (const doc of puts.filter((d) => !batch.persisted.has(d.incident_id))) {
    inserted.add(doc.incident_id);
    units.push(unit(batch, { puts: new Map([[doc.incident_id, doc]]), appends: batch.appends.filter((a) => a.incident_id === doc.incident_id) }));
  }
  for (const a of batch.appends) if (!inserted.has(a.incident_id)) units.push(unit(batch, { appends: [a] }));
  for (const id of batch.bumps) if (!batch.puts.has(id)) units.push(unit(batch, { bumps: new Set([id]) }));
  if (batch.evictions.size) units.push(unit(batch, { evictions: batch.evictions }));
  return units;
}

/** The incident one unit is about (its put, its bump or its line). */
export const unitIncident = (batch: Batch): string | undefined => [...batch.puts.keys()][0] ?? [...batch.bumps][0] ?? batch.appends[0]?.incident_id;

/** Units not written (the database went away while they were tried) as one batch again, in order. */
export function mergeUnits(units: readonly Batch[], like: Batch): Batch {
  const out = empty(like);
  const bumps = new Set<string>();
  for (const u of units) {
    for (const [id, doc] of u.puts) out.puts.set(id, doc);
    out.appends.push(...u.appends);
    for (const id of u.evictions) out.evictions.add(id);
    for (const id of u.bumps) bumps.add(id);
  }
  return { ...out, bumps };
}

export const batchSize = (b: Batch) => b.puts.size + b.appends.length + b.evictions.size + b.bumps.size;
