import { describe, expect, it } from 'vitest';
import { sseFrames } from '../../../src/net/sse-frames';

async function collect(chunks: (Buffer | string)[]): Promise<string[]> {
  const out: string[] = [];
  for await (const frame of sseFrames((async function* () {
    yield* chunks;
  })())) out.push(frame);
  return out;
}

describe('sseFrames', () => {
  it('splits frames at blank lines, wherever the chunks are cut', async () => {
    const body = 'event: a\ndata: 1\n\nevent: b\ndata: 2\n\n: keep-alive\n\n';
    const whole = await collect([body]);
    expect(whole).toEqual(['event: a\ndata: 1', 'event: b\ndata: 2', ': keep-alive']);
    // Every cut point, including between the two newlines of a blank line.
    for (let cut = 1; cut < body.length; cut++) expect(await collect([body.slice(0, cut), body.slice(cut)])).toEqual(whole);
    expect(await collect([...body])).toEqual(whole);
  });

  it('keeps a character split across two chunks whole', async () => {
    const bytes = Buffer.from('data: Zürich → R1\n\n', 'utf8');
    const at = bytes.indexOf(0xe2) + 1; // inside the arrow's three bytes
    expect(await collect([bytes.subarray(0, at), bytes.subarray(at)])).toEqual(['data: Zürich → R1']);
  });

  it('holds back an unfinished frame', async () => {
    expect(await collect(['data: 1\n\ndata: 2\n'])).toEqual(['data: 1']);
  });
});
