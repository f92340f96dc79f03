/** `INC-yyyymmddThhmmssZ`, then `-2`, `-3` … when several arrive in the same second. */
export function incidentIdFor(now: Date, taken: (id: string) => boolean): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  const base = `INC-${stamp}`;
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const id = `${base}-${n}`;
    if (!taken(id)) return id;
  }
}
