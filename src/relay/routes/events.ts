import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../../core/clock';
import { answersAndErrors } from '../../core/error-body';
import type { Bus } from '../../core/events/bus';
import { STREAMED_EVENTS, type RelayEvents } from '../../core/events/relay-events';
import { openAndRecent } from '../../core/incidents/incident-pages';
import { publicIncident } from '../../core/incidents/model';
import type { Incidents } from '../../core/incidents/service';
import { principalOf } from '../auth';
import type { Presence } from '../presence';

export interface EventsRoutesOptions {
  bus: Bus<RelayEvents>;
  incidents: Pick<Incidents, 'open' | 'values'>;
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
/** Streams written per turn of the event loop: a request waiting behind them waits for this many at most. */
const STREAMS_PER_TURN = 32;

/**
 * `GET /events`: live progress for the UI as Server-Sent Events. First a `snapshot` of the open
 * incidents and the newest finished ones (`next_cursor` pages the rest through `/sessions`), then
 * each bus event as it happens. An event is only queued for each stream where it is published
 * (the alert's own path); the streams are written in later turns, a few at a time, each what it
 * has queued in one write.
 */
export const eventsRoutes: FastifyPluginAsync<EventsRoutesOptions> = async (app, opts) => {
  const { bus, incidents } = opts;
  const clock = opts.clock ?? systemClock;
  const keepAliveMs = opts.keepAliveMs ?? 15_000;
  const maxBufferedBytes = opts.maxBufferedBytes ?? 4 * 1024 * 1024;
  const log = opts.logger ?? app.log;
  const streams = new Set<() => void>();
  /** Streams with frames queued, written in a later turn (`setImmediate`), never where the event happened. */
  const dirty = new Set<() => void>();
  let writing: NodeJS.Immediate | undefined;
  const writeSome = () => {
    writing = undefined;
    let n = 0;
    for (const write of dirty) {
      if (n++ >= STREAMS_PER_TURN) break;
      dirty.delete(write);
      write();
    }
    if (dirty.size) writing = setImmediate(writeSome);
  };
  const later = (write: () => void) => {
    dirty.add(write);
    writing ??= setImmediate(writeSome);
  };

  // Open streams would keep the server from closing.
  app.addHook('preClose', (done) => {
    for (const end of [...streams]) end();
    if (writing) clearImmediate(writing);
    writing = undefined;
    done();
  });

  // The stream itself is not JSON; a refusal before it starts (credentials, Host) is the error body.
  app.get('/events', { schema: { response: answersAndErrors } }, (request, reply) => {
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
    let queued: string[] = [];
    let queuedBytes = 0;
    const end = () => {
      if (!streams.delete(end)) return;
      dirty.delete(flush);
      queued = [];
      timer?.cancel();
      offs.forEach((off) => off());
      if (!res.writableEnded) res.end();
    };
    /** A client that does not read is let go, saying so in the log; it reconnects to a fresh snapshot. */
    const cutOff = (behind: number) => {
      log.warn({ buffered: behind }, `event stream client is ${behind} bytes behind (more than ${maxBufferedBytes} unread); disconnected, it gets a fresh snapshot when it reconnects`);
      end();
      res.destroy();
    };
    // The snapshot alone may be larger than the allowance (10,000 incidents are megabytes): only
    // what piles up beyond it means the client is not reading.
    let allowance = maxBufferedBytes;
    function flush() {
      if (res.writableEnded || res.destroyed || !queued.length) return;
      const chunk = queued.length === 1 ? (queued[0] as string) : queued.join('');
      queued = [];
      queuedBytes = 0;
      res.write(chunk);
      if (res.writableLength > allowance) cutOff(res.writableLength);
    }
    const send = (chunk: string) => {
      if (res.writableEnded || res.destroyed) return;
      queued.push(chunk);
      queuedBytes += chunk.length;
      if (queuedBytes + res.writableLength > allowance) cutOff(queuedBytes + res.writableLength);
      else later(flush);
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
    const first = openAndRecent(incidents);
    const snapshot = `retry: 2000\n${frame('snapshot', { incidents: first.incidents.map(publicIncident), next_cursor: first.next_cursor })}`;
    allowance = Buffer.byteLength(snapshot) + maxBufferedBytes;
    res.write(snapshot);
    for (const type of STREAMED_EVENTS) offs.push(bus.subscribe(type, (payload) => send(frame(type, payload))));
    keepAlive();
    request.log.debug('event stream opened');
  });
};
