import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * Everything a lab created on the host, written down as it is created (before the next step), so a
 * lab that was killed half-way can still be removed by `npm run lab -- --frr --down`.
 */
export const labStateSchema = z.object({
  id: z.string(),
  dir: z.string(),
  namespaces: z.array(z.string()),
  /** Folders outside `dir` (FRR's per-router config, run and log folders). */
  dirs: z.array(z.string()),
  /** sshd processes, by pid and the start time the kernel reports, so a reused pid is never killed. */
  processes: z.array(z.object({ pid: z.number(), startTime: z.string() })),
  /** FRR daemons' pid files (the daemons fork, so their pid is read from FRR's own file). */
  pidFiles: z.array(z.string()),
  createdRunSshd: z.boolean(),
});
export type LabState = z.infer<typeof labStateSchema>;

export class LabStateFile {
  constructor(
    readonly path: string,
    readonly state: LabState,
  ) {}

  static create(path: string, id: string, dir: string): LabStateFile {
    const file = new LabStateFile(path, { id, dir, namespaces: [], dirs: [], processes: [], pidFiles: [], createdRunSshd: false });
    file.save();
    return file;
  }

  static read(path: string): LabStateFile | undefined {
    if (!existsSync(path)) return undefined;
    return new LabStateFile(path, labStateSchema.parse(JSON.parse(readFileSync(path, 'utf8'))));
  }

  record(change: (s: LabState) => void): void {
    change(this.state);
    this.save();
  }

  private save(): void {
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.state, null, 2), { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}

/** The kernel's start time of a process (field 22 of /proc/PID/stat), or undefined if it is gone. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
