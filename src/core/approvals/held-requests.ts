import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigPreview } from '../../runbooks/config-preview';
import { replaceFileDurably } from '../incidents/file-backend';
import { readJsonFile } from '../json-file';
import { planEntrySchema } from './plan-lines';

/** Another incident's change still provisional on the device: asked once it is confirmed or rolled back. */
export const ChangeWait = z.object({ incident_id: z.string().min(1), change_id: z.string().min(1) });
export type ChangeWait = z.infer<typeof ChangeWait>;
/** A plan's device quarantined (the relay's own line for it): asked once a person clears the device. */
export const QuarantineWait = z.object({ device: z.string().min(1), since: z.string(), reason: z.string() });
export type QuarantineWait = z.infer<typeof QuarantineWait>;
export const HeldWait = z.union([ChangeWait, QuarantineWait]);
export type HeldWait = z.infer<typeof HeldWait>;
export const isQuarantineWait = (w: HeldWait): w is QuarantineWait => !('change_id' in w);

/**
 * A request_approval held behind another incident's provisional change on the same device, or a
 * plan held while one of its devices is quarantined: kept where the relay keeps what must outlive
 * it, so a restarted relay still asks it when that change is over (or the device cleared) and the
 * run need not ask again.
 */
export const HeldRequest = z.object({
  incident_id: z.string().min(1),
  input: z.object({
    incident_id: z.string().min(1),
    summary: z.string(),
    device: z.string().min(1),
    commands: z.array(z.string()),
    rollback: z.array(z.string()).optional(),
    artifact_ref: z.string().optional(),
    preview: ConfigPreview.nullable().optional(),
    plan: z.array(planEntrySchema).optional(),
  }),
  waiting_for: HeldWait,
  held_at: z.string(),
});
export type HeldRequest = z.infer<typeof HeldRequest>;

/** Where held requests are kept: the laptop's data folder, or the team's database. */
export interface HeldRequests {
  load(): Promise<HeldRequest[]>;
  /** Keeps it (replacing an earlier one of the same incident); resolves once it is durable. */
  put(held: HeldRequest): Promise<void>;
  remove(incidentId: string): Promise<void>;
}

/** In memory only: a relay without a data folder of its own (the tests' in-memory store). */
export function memoryHeldRequests(): HeldRequests {
  const held = new Map<string, HeldRequest>();
  return {
    load: async () => [...held.values()],
    put: async (h) => void held.set(h.incident_id, h),
    remove: async (id) => void held.delete(id),
  };
}

const FileShape = z.object({ version: z.literal(1), held: z.array(HeldRequest) });

/**
 * The laptop relay's held requests, in `<RELAY_DATA_DIR>/held-requests.json`, replaced whole and
 * fsynced on each change. A file that cannot be read stops the relay at start (a request dropped
 * silently is a run that waits for an answer that never comes).
 */
export function fileHeldRequests(dataDir: string): HeldRequests {
  const file = join(dataDir, 'held-requests.json');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const read = (): HeldRequest[] => readJsonFile(file, FileShape, 'fix or remove it (the runs it names then ask again)')?.held ?? [];
  const write = (held: HeldRequest[]) => replaceFileDurably(file, `${JSON.stringify({ version: 1, held }, null, 2)}\n`);
  read();
  return {
    load: async () => read(),
    async put(h) {
      write([...read().filter((x) => x.incident_id !== h.incident_id), h]);
    },
    async remove(id) {
      const held = read();
      if (held.some((x) => x.incident_id === id)) write(held.filter((x) => x.incident_id !== id));
    },
  };
}
