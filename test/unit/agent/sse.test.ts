import { describe, expect, it } from 'vitest';
import { createSseParser } from '../../../src/agent/sse';

describe('SSE parser', () => {
  it('yields each event once its blank line arrives, however the bytes are split', () => {
    const text = 'data: {"type":"a"}\n\ndata: {"type":"b"}\n\n';
    const bytes = new TextEncoder().encode(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const parser = createSseParser();
      const out = [...parser.push(bytes.slice(0, cut)), ...parser.push(bytes.slice(cut))];
      expect(out).toEqual(['{"type":"a"}', '{"type":"b"}']);
    }
  });

  it('keeps a multi-byte character that is split across chunks', () => {
    const bytes = new TextEncoder().encode('data: {"t":"Zürich ✓"}\n\n');
    const parser = createSseParser();
    const out = [...parser.push(bytes.slice(0, 12)), ...parser.push(bytes.slice(12, 22)), ...parser.push(bytes.slice(22))];
    expect(out).toEqual(['{"t":"Zürich ✓"}']);
  });

  it('handles CRLF line ends, also when CR and LF land in different chunks', () => {
    const parser = createSseParser();
    const out = [...parser.push('data: one\r'), ...parser.push('\n\r'), ...parser.push('\ndata: two\r\n\r\n')];
    expect(out).toEqual(['one', 'two']);
  });

  it('joins multi-line data and ignores comments and other fields', () => {
    const parser = createSseParser();
    expect(parser.push(': keep-alive\nevent: x\nid: 7\ndata: line1\ndata:line2\n\n')).toEqual(['line1\nline2']);
  });

  it('does not emit an event that has not ended yet, nor empty events', () => {
    const parser = createSseParser();
    expect(parser.push('\n\ndata: partial\n')).toEqual([]);
    expect(parser.push('\n')).toEqual(['partial']);
  });
});
