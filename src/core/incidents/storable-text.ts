/**
 * Text no store of the relay's can hold: a NUL character (PostgreSQL's `jsonb` and `text` refuse
 * it) and a lone UTF-16 surrogate (not Unicode text: `jsonb` refuses it, UTF-8 files and `text`
 * columns would change it). Both stores refuse it alike, at the door, naming where it is.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether JSON text may decode to such text: only escapes can (raw NULs are not JSON, bad UTF-8 decodes to U+FFFD). */
const ESCAPED = /\\u(?:0000|[dD][89a-fA-F])/;

export interface UnstorableText {
  /** Dotted path of the value, or of the object holding the key. */
  path: string;
  message: string;
}

/** The text with what cannot be stored written as escapes, fit to show back (a key, in an error). */
export const escapedText = (text: string) =>
  text.replace(new RegExp(UNSTORABLE.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * A person's reason typed in a chat card or the terminal, made storable: what no store can hold
 * becomes U+FFFD. Their decision is not refused over a character they cannot see.
 */
export const storableText = (text: string) => text.replace(new RegExp(UNSTORABLE.source, 'g'), '\ufffd');

const what = (text: string) => (text.includes('\u0000') ? 'a NUL character (\\u0000)' : 'a lone UTF-16 surrogate (not Unicode text)');

/** The first string (value or key) in a value that no store can hold, or undefined. */
export function findUnstorableText(value: unknown, path: readonly string[] = []): UnstorableText | undefined {
  const here = () => path.join('.') || '(body)';
  if (typeof value === 'string') return UNSTORABLE.test(value) ? { path: here(), message: `holds ${what(value)}, which the relay cannot store` } : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findUnstorableText(item, [...path, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (UNSTORABLE.test(key)) return { path: here(), message: `its key "${escapedText(key)}" holds ${what(key)}, which the relay cannot store` };
    const found = findUnstorableText(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** The same for a JSON body, as text and parsed: most bodies are passed over by one scan of the text. */
export const findUnstorableJson = (text: string, parsed: unknown) => (ESCAPED.test(text) ? findUnstorableText(parsed) : undefined);
