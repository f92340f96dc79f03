/**
 * Which approvers are following this relay right now: a tray (or /ui) holding `/events` open with a
 * person's own token or cookie. An approval request says who can see it at once, so a change is
 * never silently waiting on nobody.
 */
export interface Presence {
  /** Counts one open stream of this person; returns the function that ends it. */
  join(person: { email: string; role: string }): () => void;
  /** E-mails of the approvers with at least one stream open, sorted. */
  approvers(): string[];
}

export function createPresence(): Presence {
  const open = new Map<string, { role: string; streams: number }>();
  return {
    join({ email, role }) {
      const key = email.toLowerCase();
      const entry = open.get(key) ?? { role, streams: 0 };
      entry.streams += 1;
      entry.role = role;
      open.set(key, entry);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        entry.streams -= 1;
        if (entry.streams <= 0) open.delete(key);
      };
    },
    approvers: () =>
      [...open.entries()]
        .filter(([, e]) => e.role === 'approver')
        .map(([email]) => email)
        .sort(),
  };
}
