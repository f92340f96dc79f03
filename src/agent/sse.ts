/**
 * Incremental parser for a `text/event-stream` body. Only `data:` matters for the runtime
 * (it sends no `event:` or `id:` fields); an event is complete at the blank line that ends it.
 * Chunks may split lines and even multi-byte characters anywhere.
 */
export interface SseParser {
  /** Feeds one chunk; returns the data payloads of the events it completed. */
  push(chunk: Uint8Array | string): string[];
}

export function createSseParser(): SseParser {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let skipLeadingLf = false;

  const takeLine = (line: string, out: string[]) => {
    if (line === '') {
      if (data.length > 0) out.push(data.join('\n'));
      data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    data.push(value);
  };

  return {
    push(chunk) {
      buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      const out: string[] = [];
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const ch = buffer[i];
        if (skipLeadingLf) {
          skipLeadingLf = false;
          // The LF of a CRLF that was split across chunks.
          if (ch === '\n' && i === start) {
            start = i + 1;
            continue;
          }
        }
        if (ch !== '\n' && ch !== '\r') continue;
        takeLine(buffer.slice(start, i), out);
        if (ch === '\r') {
          if (i + 1 < buffer.length) {
            if (buffer[i + 1] === '\n') i++;
          } else {
            skipLeadingLf = true;
          }
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
      return out;
    },
  };
}
