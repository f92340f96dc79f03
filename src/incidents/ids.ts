/** Incidents an operator runs in the terminal UI (headed mode) carry this prefix instead of `INC-`. */
export const HEADED_PREFIX = 'HEADED-';

/** `INC-yyyymmddThhmmssZ` (or `HEADED-…`), then `-2`, `-3` … when several arrive in the same second. */
export function incidentIdFor(now: Date, taken: (id: string) => boolean, prefix = 'INC-'): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  const base = `${prefix}${stamp}`;
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const id = `${base}-${n}`;
    if (!taken(id)) return id;
  }
}
