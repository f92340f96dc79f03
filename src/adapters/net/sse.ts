/**
 * Incremental parser for a `text/event-stream` body: the agent runtime's `/event` stream and the
 * team relay's `/events`. An event is complete at the blank line that ends it; chunks may split
 * lines, CRLF pairs and multi-byte characters anywhere. Linear in the bytes fed: a line longer
 * than a chunk (the team relay's snapshot of 10,000 incidents is one `data:` line of megabytes)
 * is kept as pieces and joined once, never rescanned.
 */
export interface SseEvent {
  /** The `event:` field, when the sender names its events. */
  event?: string;
  data: string;
}

export interface SseParser {
  /** Feeds one chunk; returns the events it completed. */
  push(chunk: Uint8Array | string): SseEvent[];
}

export function createSseParser(): SseParser {
  const decoder = new TextDecoder();
  /** The line not yet ended, in the pieces it arrived in. */
  let pending: string[] = [];
  let data: string[] = [];
  let event: string | undefined;
  let skipLeadingLf = false;

  const takeLine = (line: string, out: SseEvent[]) => {
    if (line === '') {
      if (data.length > 0) out.push({ ...(event !== undefined ? { event } : {}), data: data.join('\n') });
      data = [];
      event = undefined;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  };

  return {
    push(chunk) {
      const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      const out: SseEvent[] = [];
      let start = 0;
      // The LF of a CRLF that was split across chunks.
      if (skipLeadingLf && text.startsWith('\n')) start = 1;
      skipLeadingLf = false;
      const lineEnd = /[\r\n]/g;
      lineEnd.lastIndex = start;
      for (let m = lineEnd.exec(text); m; m = lineEnd.exec(text)) {
        const i = m.index;
        takeLine(pending.length ? pending.join('') + text.slice(start, i) : text.slice(start, i), out);
        pending = [];
        if (text[i] === '\r') {
          if (i + 1 === text.length) skipLeadingLf = true;
          else if (text[i + 1] === '\n') lineEnd.lastIndex = i + 2;
        }
        start = lineEnd.lastIndex;
      }
      if (start < text.length) pending.push(text.slice(start));
      return out;
    },
  };
}
