/** Webex refuses `text`/`markdown` longer than this many bytes (UTF-8). */
export const MARKDOWN_MAX_BYTES = 7439;

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
// Room kept in every part for a closing/reopening code fence and the cut note.
const HEADROOM = 256;
const FENCE = /^\s*(```|~~~)/;

/**
 * Splits long markdown into messages Webex accepts: at line ends where possible, never inside
 * a UTF-8 character, with open code fences closed and reopened across parts. Beyond
 * `maxParts` the rest is cut and the last part says how much is missing.
 */
export function splitMarkdown(markdown: string, opts: { maxBytes?: number; maxParts?: number } = {}): string[] {
  const maxBytes = opts.maxBytes ?? MARKDOWN_MAX_BYTES;
  const maxParts = Math.max(1, opts.maxParts ?? 5);
  if (bytes(markdown) <= maxBytes) return [markdown];
  if (maxBytes <= HEADROOM * 2) throw new Error(`maxBytes must exceed ${HEADROOM * 2}`);
  const budget = maxBytes - HEADROOM;

  const parts: string[] = [];
  let cur = '';
  let fence: string | undefined; // opener of the fence open at the end of `cur`

  const flush = () => {
    if (!cur.trim()) return;
    const body = cur.replace(/\n+$/, '');
    parts.push(fence ? `${body}\n${fence.trim().slice(0, 3)}` : body);
    cur = fence ? `${fence.length <= 100 ? fence.replace(/\n$/, '') : fence.trim().slice(0, 3)}\n` : '';
  };

  for (const line of markdown.split(/(?<=\n)/)) {
    for (const piece of bytes(line) <= budget ? [line] : hardSplit(line, budget)) {
      if (bytes(cur) + bytes(piece) > budget) flush();
      cur += piece;
      if (FENCE.test(piece)) fence = fence ? undefined : piece;
    }
  }
  fence = undefined;
  flush();

  if (parts.length <= maxParts) return parts;
  const kept = parts.slice(0, maxParts);
  const shown = kept.reduce((n, p) => n + bytes(p), 0);
  const missing = Math.max(0, bytes(markdown) - shown);
  kept[maxParts - 1] += `\n\n_… message cut: about ${missing} more bytes not shown._`;
  return kept;
}

/** Cuts one over-long line into pieces of at most `budget` bytes on character boundaries. */
function hardSplit(line: string, budget: number): string[] {
  const out: string[] = [];
  let cur = '';
  let size = 0;
  for (const ch of line) {
    const n = bytes(ch);
    if (size + n > budget) {
      out.push(cur);
      cur = '';
      size = 0;
    }
    cur += ch;
    size += n;
  }
  if (cur) out.push(cur);
  return out;
}

/** Cuts markdown to one message (card fallbacks must be a single message). */
export function cutMarkdown(markdown: string, maxBytes = MARKDOWN_MAX_BYTES): string {
  if (bytes(markdown) <= maxBytes) return markdown;
  const note = '\n\n_… cut to fit one message._';
  const kept = hardSplit(markdown, maxBytes - bytes(note))[0] ?? '';
  return kept + note;
}
