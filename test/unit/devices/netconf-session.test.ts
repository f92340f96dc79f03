import { Duplex, PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DeviceError } from '../../../src/adapters/devices/errors';
import { Deframer, frame, type Framing } from '../../../src/adapters/devices/netconf/framing';
import { NetconfRpcError } from '../../../src/adapters/devices/netconf/rpc-error';
import { BASE_10, BASE_11, NetconfSession } from '../../../src/adapters/devices/netconf/session';
import { attr, parseXml } from '../../../src/runbooks/xml';

const NC = 'urn:ietf:params:xml:ns:netconf:base:1.0';

/**
 * A scripted NETCONF server on an in-memory byte stream: answers the hello with `caps`, then hands
 * each RPC to `answer`, which returns the reply's inner XML, or undefined to stay silent.
 */
function fakeServer(caps: string[], answer: (id: string, rpc: string, send: (xml: string) => void) => string | undefined) {
  const toClient = new PassThrough();
  const toServer = new PassThrough();
  const client = Duplex.from({ readable: toClient, writable: toServer });
  const d = new Deframer();
  let framing: Framing = '1.0';
  const send = (xml: string) => toClient.write(frame(xml, framing));
  const received: string[] = [];
  const ended = new Promise<void>((resolve) => toServer.once('end', resolve).once('close', resolve));
  toServer.on('data', (chunk: Buffer) => {
    for (const text of d.push(chunk)) {
      const msg = parseXml(text);
      if (msg.local === 'hello') {
        const theirs = text.includes(BASE_11) && caps.includes(BASE_11);
        framing = theirs ? '1.1' : '1.0';
        if (theirs) d.useChunked();
        continue;
      }
      received.push(text);
      const id = attr(msg, 'message-id')!;
      const body = answer(id, text, send);
      if (body !== undefined) send(`<rpc-reply message-id="${id}" xmlns="${NC}">${body}</rpc-reply>`);
    }
  });
  toClient.write(frame(`<hello xmlns="${NC}"><capabilities>${caps.map((c) => `<capability>${c}</capability>`).join('')}</capabilities><session-id>7</session-id></hello>`, '1.0'));
  return { client, received, ended, inject: send };
}

const start = (stream: Duplex, timeoutMs = 5_000, offer11 = true) => NetconfSession.start(stream, { device: 'PE1', timeoutMs, offer11 });

describe('a NETCONF session', () => {
  it('exchanges hellos, uses chunked framing with a base:1.1 peer, and matches replies by message-id', async () => {
    const held: Array<() => void> = [];
    const server = fakeServer([BASE_10, BASE_11, 'urn:ietf:params:netconf:capability:candidate:1.0?x=1'], (id, rpc, send) => {
      // The first RPC is answered only after the second: out of order on the wire.
      if (rpc.includes('<first/>')) {
        held.push(() => send(`<rpc-reply message-id="${id}" xmlns="${NC}"><data><n>first</n></data></rpc-reply>`));
        return undefined;
      }
      setImmediate(() => held.forEach((h) => h()));
      return '<data><n>second</n></data>';
    });
    const s = await start(server.client);
    expect(s.framing).toBe('1.1');
    expect(s.sessionId).toBe('7');
    expect(s.has('urn:ietf:params:netconf:capability:candidate:1.0')).toBe(true);
    const [a, b] = await Promise.all([s.rpc('<first/>', 'first'), s.rpc('<second/>', 'second')]);
    expect(JSON.stringify(a)).toContain('"first"');
    expect(JSON.stringify(b)).toContain('"second"');
  });

  it('speaks end-of-message framing to a base:1.0 peer', async () => {
    const server = fakeServer([BASE_10], () => '<ok/>');
    const s = await start(server.client);
    expect(s.framing).toBe('1.0');
    await s.rpc('<get-config><source><running/></source></get-config>', 'get-config');
    expect(server.received[0]).toMatch(/^<rpc message-id="1"/);
  });

  it('turns an rpc-error into an error naming the tag, the message and the path; warnings do not fail', async () => {
    const server = fakeServer([BASE_10, BASE_11], (_id, rpc) =>
      rpc.includes('<bad/>')
        ? '<rpc-error><error-type>application</error-type><error-tag>invalid-value</error-tag><error-severity>error</error-severity>' +
          '<error-path>/x:bgp/x:as</error-path><error-message xml:lang="en">out of range</error-message>' +
          '<error-info><bad-value>0</bad-value></error-info></rpc-error>'
        : '<rpc-error><error-type>application</error-type><error-tag>operation-failed</error-tag><error-severity>warning</error-severity><error-message>noted</error-message></rpc-error><ok/>',
    );
    const s = await start(server.client);
    const error = await s.rpc('<bad/>', 'edit-config candidate').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetconfRpcError);
    expect((error as Error).message).toBe('edit-config candidate refused: [invalid-value] out of range at /x:bgp/x:as (bad-value=0)');
    await s.rpc('<fine/>', 'fine');
    expect(s.takeWarnings()).toEqual(['fine: noted']);
    expect(s.takeWarnings()).toEqual([]);
  });

  it('closes the session on a reply no RPC waits for', async () => {
    const server = fakeServer([BASE_10, BASE_11], () => undefined);
    const s = await start(server.client);
    const pending = s.rpc('<x/>', 'x').catch((e: unknown) => e);
    server.inject(`<rpc-reply message-id="99" xmlns="${NC}"><ok/></rpc-reply>`);
    const error = await pending;
    expect(error).toBeInstanceOf(DeviceError);
    expect(error).toMatchObject({ kind: 'session_lost' });
    expect((error as Error).message).toMatch(/protocol error: a reply to message-id 99/);
    expect(s.closed).toBe(true);
  });

  it('closes the session when an RPC is not answered in time', async () => {
    const server = fakeServer([BASE_10, BASE_11], () => undefined);
    const s = await start(server.client, 200);
    const error = await s.rpc('<slow/>', 'slow thing').catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'timeout' });
    expect((error as Error).message).toMatch(/no reply to slow thing within 0.2 s; the NETCONF session was closed/);
    expect(s.closed).toBe(true);
    await expect(s.rpc('<again/>', 'again')).rejects.toMatchObject({ kind: 'timeout' });
    // The transport was ended too: the device sees the session go.
    await server.ended;
  });

  it('refuses a hello without a base capability', async () => {
    const server = fakeServer(['urn:example:nothing'], () => undefined);
    await expect(start(server.client)).rejects.toThrow(/lists no base capability/);
  });
});
