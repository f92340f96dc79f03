import { connect, type Socket } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Relay } from '../../src/relay/create-relay';
import { eventsRoutes } from '../../src/relay/routes/events';
import { captureLogger } from '../helpers/capture-logger';
import { ad000002, relayForTest, silent } from '../helpers/relay';
import { createStubRuntime } from '../helpers/stub-runtime';
import { inMemoryIncidents, manualClock } from '../unit/incidents/in-memory-incidents';
import { entries } from '../../src/core/events/timeline-entries';

// Typed rather than asserted: pino's own Logger type would otherwise become the instance's.
const fastifyLogger: FastifyBaseLogger = silent;

let relay: Relay | undefined;
let app: FastifyInstance | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await relay?.close();
  await app?.close();
  relay = undefined;
  app = undefined;
});

/** A client that asks for the stream and never reads a byte of it. */
async function neverReads(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.pause();
  socket.write(`GET /events HTTP/1.1\r\nhost: ${hostname}:${port}\r\n\r\n`);
  return socket;
}

/** A reading client, once its snapshot has come: `until(done)` reads on while `done` is false for the `event:` types seen. */
async function follower(url: string) {
  const res = await request(`${url}/events`);
  const body = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const events: string[] = [];
  let text = '';
  const readUntil = async (done: (events: string[]) => boolean) => {
    while (!done(events)) {
      const next = await body.next();
      if (next.done) break;
      text += next.value.toString('utf8');
      let cut: number;
      while ((cut = text.indexOf('\n\n')) >= 0) {
        const type = /^event: (.+)$/m.exec(text.slice(0, cut))?.[1];
        if (type) events.push(type);
        text = text.slice(cut + 2);
      }
    }
    return events;
  };
  await readUntil((seen) => seen.includes('snapshot'));
  return {
    until: async (done: (events: string[]) => boolean) => {
      await readUntil(done);
      res.body.destroy();
      return events;
    },
  };
}

describe('event stream clients that do not read', () => {
  it('do not hold up intake: every alert is answered and a reading client gets every event', async () => {
    relay = await relayForTest({ agent: createStubRuntime() });
    const url = await relay.listen({ port: 0 });
    for (let i = 0; i < 20; i++) await neverReads(url);
    const created = (events: string[]) => events.filter((e) => e === 'incident.created').length;
    const reader = await follower(url);
    const answers: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await request(`${url}/fault-alert`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ad000002({ system: `R${i}` })) });
      await res.body.dump();
      answers.push(res.statusCode);
    }
    expect(answers).toEqual(Array(30).fill(202));
    const events = await reader.until((seen) => created(seen) === 30);
    expect(events[0]).toBe('snapshot');
    expect(created(events)).toBe(30);
  });

  it('is cut off once too far behind, saying why, while the others keep receiving', async () => {
    const clock = manualClock();
    const t = inMemoryIncidents(clock);
    const logger = captureLogger();
    app = Fastify({ loggerInstance: fastifyLogger });
    app.setSerializerCompiler(serializerCompiler);
    await app.register(eventsRoutes, { bus: t.bus, incidents: t.incidents, clock, maxBufferedBytes: 256 * 1024, logger: logger.logger });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const incident = t.running('ses_1');
    await neverReads(url);
    const total = 3000;
    const reader = await follower(url);
    const read = reader.until((events) => events.filter((e) => e === 'incident.timeline').length === total);
    const bulk = 'x'.repeat(4096);
    // Far more than the socket buffers between them hold: the stalled client's backlog grows past the
    // allowance; the reader reads between bursts (each well under it).
    for (let i = 0; i < total; i++) {
      t.incidents.record(incident.incident_id, entries.toolCompleted, `entry ${i}`, { session_id: 'ses_1', tool: 'read', call_id: `call_${i}`, output: bulk });
      if (i % 10 === 9) await new Promise((r) => setImmediate(r));
    }
    expect((await read).filter((e) => e === 'incident.timeline')).toHaveLength(total);
    expect(/event stream client is \d+ bytes behind/.test(logger.text())).toBe(true);
  });
});
