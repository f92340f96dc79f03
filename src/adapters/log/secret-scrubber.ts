/**
 * Takes secret values out of any text, in the encodings they travel in: as is, JSON-escaped,
 * percent-encoded (any case, any mix of encoded and plain characters is decoded first for URLs),
 * base64 and base64url, and inside HTTP basic credentials (`user:secret`). Redaction by key
 * (pino's `redact`) misses a secret that shows up under another name; this does not.
 */
export interface SecretScrubber {
  /** Adds a secret (generated ones too, as soon as they exist); `username` also covers basic auth. */
  add(secret: string | undefined, opts?: { username?: string }): void;
  scrub(text: string): string;
}

export const REDACTED = '[redacted]';
/** Shorter values would match ordinary text; secrets that short are refused by the config anyway. */
const MIN_LENGTH = 4;

const percentAll = (s: string, upper: boolean) =>
  [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`).join('');

function variants(secret: string, username?: string): string[] {
  const out = new Set<string>([
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    percentAll(secret, true),
    percentAll(secret, false),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
  ]);
  if (username !== undefined) {
    const basic = Buffer.from(`${username}:${secret}`).toString('base64');
    out.add(basic);
    out.add(basic.replace(/=+$/, ''));
  }
  return [...out].filter((v) => v.length >= MIN_LENGTH);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Decodes percent-escapes repeatedly (`%2574` → `%74` → `t`), leaving malformed ones as they are. */
export function decodeFully(text: string, rounds = 3): string {
  let current = text;
  for (let i = 0; i < rounds; i++) {
    const next = current.replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
    if (next === current) break;
    current = next;
  }
  return current;
}

export function createSecretScrubber(initial: (string | undefined)[] = []): SecretScrubber {
  let pattern: RegExp | null = null;
  const known = new Set<string>();
  const rebuild = () => {
    // Longest first, so a secret that contains another is replaced whole.
    const all = [...known].sort((a, b) => b.length - a.length);
    pattern = all.length ? new RegExp(all.map(escapeRe).join('|'), 'g') : null;
  };
  const scrubber: SecretScrubber = {
    add(secret, opts) {
      if (!secret || secret.length < MIN_LENGTH) return;
      for (const v of variants(secret, opts?.username)) known.add(v);
      rebuild();
    },
    scrub(text) {
      return pattern ? text.replace(pattern, REDACTED) : text;
    },
  };
  for (const s of initial) scrubber.add(s);
  return scrubber;
}
