/**
 * What a person reads must be what the device receives. Characters that render as nothing
 * (zero-width), reorder the text around them (bidi controls), or look like ASCII but are not
 * (Cyrillic `а` in `neighbor`) are shown escaped, `\u{200B}`, with a warning, on every channel.
 */

/** Bidi embeddings, overrides and isolates, and the implicit marks. */
export const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
/** Zero-width and invisible formatting characters, and the BOM. */
export const INVISIBLE = /[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200d\u2060-\u2064\u3164\ufe00-\ufe0f\ufeff\uffa0]/u;
/** Anything a router's configuration line would not carry in plain ASCII: printable ASCII and space only. */
const NOT_PLAIN = /[^\x20-\x7e]/u;

export type Oddity = 'bidi' | 'invisible' | 'non_ascii' | 'control';

export interface VisibleLine {
  /** The line with every character that would be read differently written as `\u{XXXX}`. */
  text: string;
  /** What was found, for the warning. Empty: the line is plain ASCII and shown as it is. */
  oddities: Oddity[];
}

const hex = (ch: string) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}}`;

function kindOf(ch: string): Oddity {
  if (BIDI.test(ch)) return 'bidi';
  if (INVISIBLE.test(ch)) return 'invisible';
  if (/\p{Cc}/u.test(ch)) return 'control';
  return 'non_ascii';
}

export function visibleLine(line: string): VisibleLine {
  if (!NOT_PLAIN.test(line)) return { text: line, oddities: [] };
  const found = new Set<Oddity>();
  let text = '';
  for (const ch of line) {
    if (!NOT_PLAIN.test(ch) || ch === '\t') {
      text += ch === '\t' ? '\\t' : ch;
      if (ch === '\t') found.add('control');
      continue;
    }
    found.add(kindOf(ch));
    text += hex(ch);
  }
  return { text, oddities: [...found] };
}

const WORDS: Record<Oddity, string> = {
  bidi: 'bidirectional-text controls (they reorder what you see)',
  invisible: 'invisible characters',
  non_ascii: 'non-ASCII characters (look-alikes of ASCII letters are possible)',
  control: 'control characters',
};

/** The lines as shown to a person, and one warning sentence when any of them is not plain ASCII. */
export function visibleLines(lines: readonly string[]): { lines: string[]; warning: string | null } {
  const shown = lines.map(visibleLine);
  const kinds = new Set(shown.flatMap((l) => l.oddities));
  const odd = shown.map((l, i) => (l.oddities.length ? i + 1 : 0)).filter(Boolean);
  const warning = kinds.size
    ? `WARNING: line${odd.length > 1 ? 's' : ''} ${odd.join(', ')} contain${odd.length > 1 ? '' : 's'} ${[...kinds].map((k) => WORDS[k]).join(', ')}, shown escaped as \\u{…}: the device receives those characters, not what they look like.`
    : null;
  return { lines: shown.map((l) => l.text), warning };
}
