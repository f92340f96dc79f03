import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import { incidentSchema, type Incident } from './model';
import type { KeyValueBackend } from './store';

let stamp: string | undefined;
/**
 * The record format this build writes: a hash of the incident schema as JSON Schema, so a change
 * to it (a field added with its default) makes every earlier file be read through the schema once.
 */
export function incidentStamp(): string {
  stamp ??= `incident/${createHash('sha256').update(JSON.stringify(z.toJSONSchema(incidentSchema, { io: 'input', unrepresentable: 'any' }))).digest('hex').slice(0, 16)}`;
  return stamp;
}

/**
 * Each backend's list, into `index`. A list the files backend sealed with this build's stamp is
 * exactly what this store wrote (its checksum holds), so its records are taken as they are: the
 * schema check of every record was most of a start with 100,000 of them. Any other list (older,
 * edited by hand, a memory backend) goes through the schema, record by record, and a record that
 * fails is logged and kept out.
 */
export function loadIndex(backends: KeyValueBackend[], key: string, index: Map<string, Incident>, logger: Logger): void {
  for (const backend of backends) {
    const list = backend.get(key);
    if (!Array.isArray(list)) continue;
    const sealed = backend.sealOf?.(key) === incidentStamp();
    for (const raw of list as unknown[]) {
      if (sealed && typeof (raw as Incident | null)?.incident_id === 'string') {
        index.set((raw as Incident).incident_id, raw as Incident);
        continue;
      }
      const parsed = incidentSchema.safeParse(raw);
      if (parsed.success) index.set(parsed.data.incident_id, parsed.data);
      else logger.error({ incident_id: (raw as { incident_id?: unknown })?.incident_id }, 'stored incident unreadable, kept out of the index');
    }
  }
}
