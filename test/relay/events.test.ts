import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bus } from '../../src/core/events/bus';
import type { RelayEvents } from '../../src/core/incidents/events';
import { bearerGuard } from '../../src/relay/auth';
import { installErrorHandler } from '../../src/relay/errors';
import { eventsRoutes } from '../../src/relay/routes/events';
import { silent } from '../helpers/relay';
import { inMemoryIncidents, manualClock } from '../unit/incidents/in-memory-incidents';
import { entries } from '../../src/core/events/timeline-entries';
import { z } from 'zod';
import { define } from '../../src/core/events/define';

// Typed rather than asserted: pino's own Logger type would otherwise become the instance's.
const fastifyLogger: FastifyBaseLogger = silent;

/** A line of no particular kind, to see it pass through. */
const note = define('note', z.looseObject({}), 'runtime');

interface Frame {
  event?: string;
  data?: unknown;
  comment?: string;
  retry?: number;
}

/** Reads an SSE body frame by frame; `next()` resolves with the next complete frame. */
function frames(body: AsyncIterable<Buffer>) {
  const queue: Frame[] = [];
  const waiting: ((f: Frame | null) => void)[] = [];
  let ended = false;
  const push = (f: Frame | null) => {
    const w = waiting.shift();
    if (w) w(f);
    else if (f) queue.push(f);
  };
  void (async () => {
    let buffered = '';
    try {
      for await (const chunk of body) {
        buffered += chunk.toString('utf8');
        let cut: number;
        while ((cut = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, cut);
          buffered = buffered.slice(cut + 2);
          const f: Frame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) f.comment = line.slice(1).trim();
            else if (line.startsWith('event: ')) f.event = line.slice(7);
            else if (line.startsWith('data: ')) f.data = JSON.parse(line.slice(6));
            else if (line.startsWith('retry: ')) f.retry = Number(line.slice(7));
          }
          push(f);
        }
      }
    } catch {
      // The client destroyed the body, or the server cut the connection.
    }
    ended = true;
    while (waiting.length) push(null);
  })();
  return {
    next: () => new Promise<Frame | null>((resolve) => (queue.length ? resolve(queue.shift()!) : ended ? resolve(null) : waiting.push(resolve))),
  };
}

/** The bus with a count of live subscriptions, so a test can await the stream letting go. */
function countingBus(bus: Bus<RelayEvents>) {
  let active = 0;
  let onZero: (() => void) | undefined;
  const counted: Bus<RelayEvents> = {
    ...bus,
    subscribe(type, handler) {
      active += 1;
      const off = bus.subscribe(type, handler);
      return () => {
        off();
        active -= 1;
        if (active === 0) onZero?.();
      };
    },
  };
  return { bus: counted, active: () => active, released: () => new Promise<void>((r) => (active === 0 ? r() : (onZero = r))) };
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(opts: { secret?: string; maxBufferedBytes?: number } = {}) {
  const clock = manualClock();
  const relay = inMemoryIncidents(clock);
  const counting = countingBus(relay.bus);
  const server = Fastify({ loggerInstance: fastifyLogger });
  app = server;
  // The relay's serializer: the route declares its refusals with the zod error body.
  server.setSerializerCompiler(serializerCompiler);
  installErrorHandler(server);
  await server.register(async (scope) => {
    scope.addHook('onRequest', bearerGuard(opts.secret));
    await scope.register(eventsRoutes, { bus: counting.bus, incidents: relay.incidents, clock, maxBufferedBytes: opts.maxBufferedBytes });
  });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  const open = async (headers: Record<string, string> = {}) => {
    const res = await request(`${url}/events`, { headers });
    return { res, frames: frames(res.body as AsyncIterable<Buffer>) };
  };
  return { ...relay, clock, url, open, counting };
}

describe('GET /events', () => {
  it('opens with a snapshot of every incident, then streams incident and approval events as they happen', async () => {
    const t = await serve();
    const before = t.running('ses_1');
    const { res, frames: stream } = await t.open();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.headers['cache-control']).toContain('no-cache');

    const snapshot = await stream.next();
    expect(snapshot).toMatchObject({ event: 'snapshot', retry: 2000 });
    const listed = (snapshot?.data as { incidents: Record<string, unknown>[] }).incidents;
    expect(listed.map((i) => i.incident_id)).toEqual([before.incident_id]);
    expect(listed[0]).toMatchObject({ state: 'running', session_id: 'ses_1' });
    expect(listed[0]).not.toHaveProperty('dedup_key');

    t.incidents.record(before.incident_id, entries.toolCompleted, 'network-troubleshooter: read completed', { session_id: 'ses_1', tool: 'read', call_id: 'call_1', output: '' });
    expect(await stream.next()).toMatchObject({
      event: 'incident.timeline',
      data: { incident_id: before.incident_id, entry: { type: 'tool.completed', message: 'network-troubleshooter: read completed' } },
    });

    t.incidents.transition(before.incident_id, 'request_approval');
    expect(await stream.next()).toMatchObject({ event: 'incident.timeline', data: { entry: { type: 'state.changed' } } });
    expect(await stream.next()).toMatchObject({
      event: 'incident.updated',
      data: { incident: { incident_id: before.incident_id, state: 'awaiting_approval' }, previous_state: 'running' },
    });

    const request_ = { summary: 's', device: 'R1', commands: ['no shutdown'], rollback: [], requested_at: 'a', expires_at: 'b', status: 'pending' as const, lines_sha256: '', channels: [], request_id: 'REQ-TEST-0001', terminal_shown_at: null };
    t.bus.publish('approval.requested', { incident: { ...before, dedup_key: undefined } as never, request: request_ });
    expect(await stream.next()).toMatchObject({ event: 'approval.requested', data: { request: { commands: ['no shutdown'] } } });

    const later = t.running('ses_2');
    expect(await stream.next()).toMatchObject({ event: 'incident.timeline', data: { entry: { type: 'alert.received' } } });
    expect(await stream.next()).toMatchObject({ event: 'incident.created', data: { incident: { incident_id: later.incident_id } } });
  });

  it('sends a keep-alive comment every 15 s and lets go of the bus and its timer when the client leaves', async () => {
    const t = await serve();
    const incident = t.running('ses_1');
    const { res, frames: stream } = await t.open();
    await stream.next();
    expect(t.counting.active()).toBe(5);

    t.clock.advance(14_999);
    t.incidents.record(incident.incident_id, note, 'marker');
    // Nothing before the marker: the keep-alive is not due yet.
    expect(await stream.next()).toMatchObject({ event: 'incident.timeline', data: { entry: { message: 'marker' } } });
    t.clock.advance(1);
    expect(await stream.next()).toEqual({ comment: 'keep-alive' });
    t.clock.advance(15_000);
    expect(await stream.next()).toEqual({ comment: 'keep-alive' });

    res.body.destroy();
    await t.counting.released();
    expect(t.counting.active()).toBe(0);
    expect(t.clock.pending()).toBe(0);
  });

  it('delivers a snapshot larger than the unread allowance, and streams after it (a team with 10,000 incidents)', async () => {
    const t = await serve({ maxBufferedBytes: 2_000 });
    const many = Array.from({ length: 40 }, (_, n) => t.running(`ses_${n}`));
    const { frames: stream } = await t.open();
    const snapshot = await stream.next();
    expect(JSON.stringify(snapshot?.data).length).toBeGreaterThan(2_000);
    expect((snapshot?.data as { incidents: unknown[] }).incidents).toHaveLength(40);
    t.incidents.record(many[0]!.incident_id, note, 'after the snapshot');
    expect(await stream.next()).toMatchObject({ event: 'incident.timeline', data: { entry: { message: 'after the snapshot' } } });
  });

  it('ends open streams when the relay closes, so closing does not hang', async () => {
    const t = await serve();
    const { frames: stream } = await t.open();
    await stream.next();
    await app!.close();
    app = undefined;
    expect(await stream.next()).toBeNull();
    expect(t.counting.active()).toBe(0);
  });

  it('needs the bearer when WEBHOOK_SECRET is set, and streams nothing without it', async () => {
    const t = await serve({ secret: 's3cret-value' });
    const denied = await request(`${t.url}/events`);
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['www-authenticate']).toContain('Bearer');
    expect(await denied.body.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect(t.counting.active()).toBe(0);

    const { res, frames: stream } = await t.open({ authorization: 'Bearer s3cret-value' });
    expect(res.statusCode).toBe(200);
    expect((await stream.next())?.event).toBe('snapshot');
  });
});
