import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createBus } from '../../src/core/events/bus';
import type { RelayEvents } from '../../src/core/incidents/events';
import { createMemoryBackend, createPersistentStore } from '../../src/core/incidents/persistent-store';
import { createIncidents } from '../../src/core/incidents/service';
import { installErrorHandler } from '../../src/relay/errors';
import { eventsRoutes } from '../../src/relay/routes/events';
import { sessionsRoutes } from '../../src/relay/routes/sessions';
import { silent } from '../helpers/relay';
import { manualClock } from '../unit/incidents/in-memory-incidents';

// Typed rather than asserted: pino's own Logger type would otherwise become the instance's.
const fastifyLogger: FastifyBaseLogger = silent;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** `open` incidents still queued and `finished` ones failed, a few sharing a creation instant (ties by id). */
async function relayWith(open: number, finished: number) {
  const clock = manualClock();
  const bus = createBus<RelayEvents>((error) => {
    throw error;
  });
  const store = createPersistentStore({ backend: createMemoryBackend(), retention: open + finished, logger: silent });
  const incidents = createIncidents({ store, bus, clock, logger: silent });
  const make = (n: number) =>
    incidents.create({ alert_def_id: 'AD000002', device_hostname: `R${n}`, mode: 'strict', warnings: [], alert_vars: {}, dedup_key: `key-${n}`, promptTextFor: () => 'p' });
  const finishedIds: string[] = [];
  for (let n = 0; n < finished; n++) {
    if (n % 3) clock.advance(1);
    const created = make(n);
    incidents.transition(created.incident_id, 'fail');
    finishedIds.push(created.incident_id);
  }
  const openIds = Array.from({ length: open }, (_, n) => make(finished + n).incident_id);
  const server = Fastify({ loggerInstance: fastifyLogger });
  app = server;
  server.setValidatorCompiler(validatorCompiler);
  server.setSerializerCompiler(serializerCompiler);
  installErrorHandler(server);
  await server.register(sessionsRoutes, { incidents });
  await server.register(eventsRoutes, { bus, incidents, clock });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return { server, url, incidents, openIds, finishedIds };
}

/** The first frame of `GET /events` (the snapshot), then the stream is let go. */
async function snapshotOf(url: string) {
  const res = await request(`${url}/events`);
  let text = '';
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    text += chunk.toString('utf8');
    if (text.includes('\n\n', text.indexOf('event: snapshot'))) break;
  }
  res.body.destroy();
  const data = text.split('\n').find((l) => l.startsWith('data: '));
  return JSON.parse((data ?? '').slice(6)) as { incidents: { incident_id: string }[]; next_cursor: string | null };
}

describe('/sessions and the /events snapshot with many incidents', () => {
  it('give every open incident and the 100 newest finished, and the cursor pages the rest, nothing lost or repeated', async () => {
    const t = await relayWith(7, 450);
    const first = await t.server.inject({ url: '/sessions' });
    expect(first.statusCode).toBe(200);
    const listed = Object.keys(first.json<Record<string, unknown>>());
    expect(listed).toHaveLength(7 + 100);
    expect(listed).toEqual(expect.arrayContaining(t.openIds));
    // Newest finished first: the last 100 made.
    expect(listed.filter((id) => !t.openIds.includes(id)).sort()).toEqual(t.finishedIds.slice(-100).sort());

    const seen = [...listed];
    let cursor = first.headers['x-next-cursor'] as string | undefined;
    let pages = 0;
    while (cursor) {
      const page = await t.server.inject({ url: `/sessions?cursor=${cursor}&limit=100` });
      expect(page.statusCode).toBe(200);
      const body = page.json<{ incidents: { incident_id: string; state: string }[]; next_cursor: string | null }>();
      expect(body.incidents.length).toBeLessThanOrEqual(100);
      expect(body.incidents.every((i) => i.state === 'failed')).toBe(true);
      seen.push(...body.incidents.map((i) => i.incident_id));
      cursor = body.next_cursor ?? undefined;
      pages += 1;
    }
    expect(pages).toBe(4);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual([...t.openIds, ...t.finishedIds].sort());

    // The snapshot is the same bounded set, with the same cursor.
    const snapshot = await snapshotOf(t.url);
    expect(snapshot.incidents.map((i) => i.incident_id).sort()).toEqual(listed.sort());
    expect(snapshot.next_cursor).toBe(first.headers['x-next-cursor']);
  });

  it('refuses a cursor it did not give out in the documented error shape, and a limit past the largest page', async () => {
    const t = await relayWith(1, 3);
    for (const bad of ['not-a-cursor!', Buffer.from('{"created_at":"x","incident_id":"y"}').toString('base64url')]) {
      const res = await t.server.inject({ url: `/sessions?cursor=${encodeURIComponent(bad)}` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    }
    expect((await t.server.inject({ url: '/sessions?limit=100000' })).statusCode).toBe(400);
    // A few incidents: everything in the first answer and no cursor.
    const all = await t.server.inject({ url: '/sessions' });
    expect(Object.keys(all.json<object>())).toHaveLength(4);
    expect(all.headers['x-next-cursor']).toBeUndefined();
    expect((await t.server.inject({ url: '/sessions?limit=2' })).json()).toMatchObject({ incidents: [{ state: 'failed' }, { state: 'failed' }], next_cursor: expect.any(String) });
  });

  it('finds incidents by time range, state, device, approver and outcome, open and finished alike, and names a bad filter', async () => {
    const t = await relayWith(2, 4);
    const [first, second] = t.finishedIds as [string, string];
    const at = t.incidents.get(second)!.created_at;
    const ids = async (query: string) => {
      const res = await t.server.inject({ url: `/sessions?${query}` });
      expect(res.statusCode).toBe(200);
      const body = res.json<{ incidents: { incident_id: string }[]; next_cursor: string | null }>();
      return body.incidents.map((i) => i.incident_id).sort();
    };
    expect(await ids('state=queued')).toEqual([...t.openIds].sort());
    expect(await ids('state=queued,failed')).toHaveLength(6);
    expect(await ids('device=r0')).toEqual([first]);
    expect(await ids(`from=${encodeURIComponent(at)}&state=failed&device=R1`)).toEqual([second]);
    expect(await ids(`to=${encodeURIComponent(at)}&device=R1`)).toEqual([]);
    expect(await ids('outcome=resolved')).toEqual([]);
    expect(await ids('approver=ana')).toEqual([]);
    // A page of two, then the rest by its cursor: the filter holds across pages.
    const page = (await t.server.inject({ url: '/sessions?state=failed&limit=2' })).json<{ incidents: unknown[]; next_cursor: string }>();
    expect(page.incidents).toHaveLength(2);
    const rest = (await t.server.inject({ url: `/sessions?state=failed&limit=2&cursor=${page.next_cursor}` })).json<{ incidents: unknown[] }>();
    expect(rest.incidents).toHaveLength(2);
    for (const bad of ['state=burning', 'from=yesterday', 'outcome=maybe']) {
      const res = await t.server.inject({ url: `/sessions?${bad}` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: { code: expect.any(String), message: expect.stringMatching(/state|from|outcome/) } });
    }
  });
});
