import { describe, expect, it } from 'vitest';
import { createSseParser } from '../../../src/adapters/net/sse';

const data = (events: { data: string }[]) => events.map((e) => e.data);

describe('SSE parser', () => {
  it('yields each event once its blank line arrives, however the bytes are split', () => {
    const text = 'data: {"type":"a"}\n\ndata: {"type":"b"}\n\n';
    const bytes = new TextEncoder().encode(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const parser = createSseParser();
      const out = data([...parser.push(bytes.slice(0, cut)), ...parser.push(bytes.slice(cut))]);
      expect(out).toEqual(['{"type":"a"}', '{"type":"b"}']);
    }
  });

  it('keeps a multi-byte character that is split across chunks', () => {
    const bytes = new TextEncoder().encode('data: {"t":"Zürich ✓"}\n\n');
    const parser = createSseParser();
    const out = data([...parser.push(bytes.slice(0, 12)), ...parser.push(bytes.slice(12, 22)), ...parser.push(bytes.slice(22))]);
    expect(out).toEqual(['{"t":"Zürich ✓"}']);
  });

  it('handles CRLF line ends, also when CR and LF land in different chunks', () => {
    const parser = createSseParser();
    const out = data([...parser.push('data: one\r'), ...parser.push('\n\r'), ...parser.push('\ndata: two\r\n\r\n')]);
    expect(out).toEqual(['one', 'two']);
  });

  it('joins multi-line data, keeps the event name, and ignores comments and other fields', () => {
    const parser = createSseParser();
    expect(parser.push(': keep-alive\nevent: x\nid: 7\ndata: line1\ndata:line2\n\ndata: unnamed\n\n')).toEqual([
      { event: 'x', data: 'line1\nline2' },
      { data: 'unnamed' },
    ]);
  });

  it('does not emit an event that has not ended yet, nor empty events', () => {
    const parser = createSseParser();
    expect(parser.push('\n\ndata: partial\n')).toEqual([]);
    expect(data(parser.push('\n'))).toEqual(['partial']);
  });

  it('splits named events at every cut point, and keeps a line longer than many chunks whole (a team snapshot)', () => {
    const body = 'event: a\ndata: 1\n\nevent: b\ndata: 2\n\n: keep-alive\n\n';
    const whole = createSseParser().push(body);
    expect(whole).toEqual([{ event: 'a', data: '1' }, { event: 'b', data: '2' }]);
    for (let cut = 1; cut < body.length; cut++) {
      const parser = createSseParser();
      expect([...parser.push(body.slice(0, cut)), ...parser.push(body.slice(cut))]).toEqual(whole);
    }
    const big = `event: snapshot\ndata: ${'x'.repeat(200_000)}\n\n`;
    const parser = createSseParser();
    const out = Array.from({ length: Math.ceil(big.length / 1000) }, (_, n) => parser.push(big.slice(n * 1000, (n + 1) * 1000))).flat();
    expect(out).toEqual([{ event: 'snapshot', data: 'x'.repeat(200_000) }]);
  });
});
