import { NETCONF_EOM } from '../../../runbooks/netconf-fragment';
/**
 * NETCONF message framing over SSH (RFC 6242). Both sides start with the 1.0 end-of-message
 * marker `]]>]]>` for the hello; when both hellos list base:1.1, every later message uses chunked
 * framing (`\n#<len>\n<bytes>` … `\n##\n`). Chunk lengths count bytes, not characters, so this
 * works on Buffers and decodes UTF-8 only once a whole message is in.
 */

export type Framing = '1.0' | '1.1';

export const EOM = NETCONF_EOM;
const EOM_BYTES = Buffer.from(EOM);
/** RFC 6242 §4.2: a chunk is 1..4294967295 bytes. */
const MAX_CHUNK = 4_294_967_295;
/** A reply larger than this is refused (and the session closed) rather than held in memory. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export class FramingError extends Error {}

/** One message, framed for the wire. */
export function frame(message: string, framing: Framing): Buffer {
  const body = Buffer.from(message, 'utf8');
  if (framing === '1.0') {
    // A 1.0 message cannot carry the marker: it would end the message early and the rest would be
    // read as a second, unchecked message. Callers refuse such text before it gets here.
    if (body.includes(EOM_BYTES)) throw new FramingError(`a NETCONF 1.0 message cannot contain "${EOM}"`);
    return Buffer.concat([body, EOM_BYTES]);
  }
  if (body.length === 0) throw new FramingError('an empty message cannot be chunk-framed');
  return Buffer.concat([Buffer.from(`\n#${body.length}\n`), body, Buffer.from('\n##\n')]);
}

/** Splits the incoming byte stream into whole messages, in either framing. */
export class Deframer {
  private buffer: Buffer = Buffer.alloc(0);
  /** Chunks of the 1.1 message being read. */
  private parts: Buffer[] = [];
  private partsLength = 0;
  framing: Framing = '1.0';

  /** Switches to chunked framing after the hellos; formatting whitespace left after the hello is dropped. */
  useChunked(): void {
    this.framing = '1.1';
    if (!this.buffer.toString('latin1').trim()) this.buffer = Buffer.alloc(0);
  }

  /** Adds bytes; returns every message now complete. Throws FramingError on a malformed stream. */
  push(chunk: Buffer): string[] {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    const out: string[] = [];
    for (;;) {
      const message = this.framing === '1.0' ? this.next10() : this.next11();
      if (message === undefined) break;
      out.push(message);
    }
    if (this.buffer.length + this.partsLength > MAX_MESSAGE_BYTES) throw new FramingError(`a message longer than ${MAX_MESSAGE_BYTES} bytes`);
    return out;
  }

  private next10(): string | undefined {
    const end = this.buffer.indexOf(EOM_BYTES);
    if (end === -1) return undefined;
    const message = this.buffer.subarray(0, end).toString('utf8');
    this.buffer = this.buffer.subarray(end + EOM_BYTES.length);
    return message;
  }

  private next11(): string | undefined {
    for (;;) {
      // The longest header is "\n#" + 10 digits + "\n": 13 bytes are enough to judge one.
      const head = this.buffer.subarray(0, 13).toString('latin1');
      if (head.startsWith('\n##\n')) {
        this.buffer = this.buffer.subarray(4);
        if (this.parts.length === 0) throw new FramingError('end of chunks without a chunk');
        const message = Buffer.concat(this.parts).toString('utf8');
        this.parts = [];
        this.partsLength = 0;
        return message;
      }
      const m = /^\n#([1-9]\d{0,9})\n/.exec(head);
      if (!m) {
        // Only the start of a header so far: wait for more bytes. Anything else is a broken stream.
        if (head.length < 13 && /^(\n(#(#|[1-9]\d{0,9})?)?)?$/.test(head)) return undefined;
        throw new FramingError(`bad chunk header ${JSON.stringify(head)}`);
      }
      const size = Number(m[1]);
      if (size > MAX_CHUNK) throw new FramingError(`chunk size ${size} is over the limit`);
      const start = m[0].length;
      if (this.buffer.length < start + size) return undefined;
      this.parts.push(this.buffer.subarray(start, start + size));
      this.partsLength += size;
      this.buffer = this.buffer.subarray(start + size);
    }
  }
}
