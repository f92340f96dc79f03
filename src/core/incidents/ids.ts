/** Incidents an operator runs in the terminal UI (headed mode) carry this prefix instead of `INC-`. */
export const HEADED_PREFIX = 'HEADED-';

/**
 * `INC-yyyymmddThhmmssZ` (or `HEADED-…`), then `-2`, `-3` … when several arrive in the same second.
 *
 * A team relay passes its `tag` (`r` and a number the database gives each relay start, see
 * src/adapters/store-pg/migrations.ts): `INC-yyyymmddThhmmssZ-r7`, then `-r7-2` … Two relays on one
 * database never share a tag, so they never make the same id, whatever their clocks say; the
 * `-2` counter only has to be unique within this relay, which `taken` (its memory) sees whole.
 * The tag starts with a letter so it never reads as the laptop's `-2`.
 */
export function incidentIdFor(now: Date, taken: (id: string) => boolean, prefix = 'INC-', tag?: string): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  const base = `${prefix}${stamp}${tag ? `-${tag}` : ''}`;
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const id = `${base}-${n}`;
    if (!taken(id)) return id;
  }
}

/** A relay's tag from the number its database gave this start: short, and never a plain number. */
export const relayTag = (n: number | bigint) => `r${n.toString(36)}`;
