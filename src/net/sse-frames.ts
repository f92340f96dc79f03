/**
 * Splits a Server-Sent Events body into frames (the text between blank lines), in linear time.
 * A snapshot of 10,000 incidents arrives as megabytes in hundreds of chunks: appending each chunk
 * to one string and searching it again from the start would copy the whole frame per chunk.
 * Chunks are decoded as one stream, so a character split across two chunks stays whole.
 */
export async function* sseFrames(body: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let parts: string[] = [];
  // The last character held in `parts`, so a blank line split across two chunks is still seen.
  let tail = '';
  for await (const chunk of body) {
    const text = (typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })).replace(/\r\n/g, '\n');
    let from = 0;
    if (tail === '\n' && text.startsWith('\n')) {
      yield parts.join('').slice(0, -1);
      parts = [];
      from = 1;
    }
    let end: number;
    while ((end = text.indexOf('\n\n', from)) !== -1) {
      yield parts.join('') + text.slice(from, end);
      parts = [];
      from = end + 2;
    }
    const rest = text.slice(from);
    if (rest) {
      parts.push(rest);
      tail = rest.at(-1) ?? '';
    } else if (from > 0) tail = '';
  }
}
