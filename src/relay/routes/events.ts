import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../../clock';
import type { Bus } from '../../events/bus';
import type { RelayEvents } from '../../incidents/events';
import { publicIncident } from '../../incidents/model';
import type { Incidents } from '../../incidents/service';
import { principalOf } from '../auth';
import type { Presence } from '../presence';

/** What the UI stream carries after its snapshot, in the bus's own names. */
export const STREAMED_EVENTS = [
  'incident.created',
  'incident.updated',
  'incident.timeline',
  'approval.requested',
  'approval.decided',
] as const satisfies readonly (keyof RelayEvents)[];

export interface EventsRoutesOptions {
  bus: Bus<RelayEvents>;
  incidents: Pick<Incidents, 'list'>;
  clock?: Clock;
  /** A comment line this often keeps proxies and the socket's idle timeout from closing the stream. */
  keepAliveMs?: number;
  /** A client that lets this much pile up unread is cut off; it reconnects and gets a fresh snapshot. */
  maxBufferedBytes?: number;
  logger?: Logger;
  /** Told of every stream an approver holds open (live approval channels). */
  presence?: Presence;
}

const frame = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * `GET /events`: live progress for the UI as Server-Sent Events. First a `snapshot` of every
 * incident, then each bus event as it happens. Written straight to the socket so nothing waits
 * in a buffer.
 */
export const eventsRoutes: FastifyPluginAsync<EventsRoutesOptions> = async (app, opts) => {
  const { bus, incidents } = opts;
  const clock = opts.clock ?? systemClock;
  const keepAliveMs = opts.keepAliveMs ?? 15_000;
  const maxBufferedBytes = opts.maxBufferedBytes ?? 4 * 1024 * 1024;
  const log = opts.logger ?? app.log;
  const streams = new Set<() => void>();

  // Open streams would keep the server from closing.
  app.addHook('preClose', (done) => {
    for (const end of [...streams]) end();
    done();
  });

  app.get('/events', (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });

    let timer: { cancel(): void } | undefined;
    const offs: (() => void)[] = [];
    const end = () => {
      if (!streams.delete(end)) return;
      timer?.cancel();
      offs.forEach((off) => off());
      if (!res.writableEnded) res.end();
    };
    // The snapshot alone may be larger than the allowance (10,000 incidents are megabytes): only
    // what piles up beyond it means the client is not reading.
    let allowance = maxBufferedBytes;
    const send = (chunk: string) => {
      if (res.writableEnded || res.destroyed) return;
      res.write(chunk);
      if (res.writableLength > allowance) {
        log.warn({ buffered: res.writableLength }, 'event stream client is not reading; disconnected');
        end();
        res.destroy();
      }
    };
    const keepAlive = () => {
      timer = clock.setTimeout(() => {
        send(': keep-alive\n\n');
        keepAlive();
      }, keepAliveMs);
    };

    streams.add(end);
    res.on('close', end);
    // An approver following the relay is a live approval channel: counted while the stream is open.
    const who = principalOf(request);
    if (who?.kind === 'operator' && opts.presence) offs.push(opts.presence.join({ email: who.operator.email, role: who.operator.role }));
    // Snapshot and subscriptions in one turn: no event can fall between them.
    const snapshot = `retry: 2000\n${frame('snapshot', { incidents: incidents.list().map(publicIncident) })}`;
    allowance = Buffer.byteLength(snapshot) + maxBufferedBytes;
    send(snapshot);
    for (const type of STREAMED_EVENTS) offs.push(bus.subscribe(type, (payload) => send(frame(type, payload))));
    keepAlive();
    request.log.debug('event stream opened');
  });
};
