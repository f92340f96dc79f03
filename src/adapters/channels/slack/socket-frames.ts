import type WebSocket from 'ws';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/clock';
import { disconnectFrameSchema, envelopeSchema, helloFrameSchema, type Envelope } from './schemas';
import type { SocketModeOptions } from './socket-mode';

/** Reasons Slack closes a socket for good: reconnecting would only be refused again. */
const FATAL_DISCONNECTS: Record<string, string> = {
  too_many_websockets: 'Slack refused the connection: this app has too many open websockets (at most 10); another relay or a stolen SLACK_APP_TOKEN may hold them',
  link_disabled: 'Slack closed the connection: Socket Mode is turned off for this app',
};
const MAX_REMEMBERED_ENVELOPES = 1000;

/** What a frame handler needs of the connection it reads for. */
export interface FrameContext {
  clock: Clock;
  logger: Logger;
  onStatus: SocketModeOptions['onStatus'];
  onEnvelope(envelope: Envelope): void;
  /** How many sockets of ours said hello and are open. */
  liveSockets(): number;
  isCurrent(ws: WebSocket): boolean;
  /** A replacement socket is being opened (Slack asked for a new connection). */
  replacing: { now: boolean };
  degrade(reason: string, message: string): void;
  /** Opens the replacement socket; resolves at its hello. */
  connect(): Promise<void>;
  retryLater(why: string): void;
}

/**
 * Reads one socket's frames: `hello` makes it the current socket (and ends a handover), a
 * `disconnect` either stops for good or opens the replacement first, and an envelope is acknowledged
 * before it is handed on, once per envelope id however often Slack repeats it.
 */
export function createFrameHandler(ctx: FrameContext) {
  const { logger } = ctx;
  const seen = new Set<string>();
  const remember = (id: string) => {
    seen.add(id);
    if (seen.size > MAX_REMEMBERED_ENVELOPES) seen.delete(seen.values().next().value as string);
  };

  function onHello(ws: WebSocket, numConnections: number | undefined, previous: WebSocket | undefined) {
    // Ours: this socket and, during a handover, the one it replaces. More means another holder of the token.
    const ours = ctx.liveSockets();
    const others = (numConnections ?? ours) - ours;
    ctx.onStatus({
      connected: true,
      error: undefined,
      // A new leadership term may find Socket Mode turned back on: a hello ends the degraded state.
      degraded: undefined,
      degradedReason: undefined,
      warning: others > 0 ? `Slack reports ${numConnections} connections for this app; this relay opened ${ours}: another process may hold SLACK_APP_TOKEN and receive clicks` : undefined,
    });
    // The handover's second half: the new socket said hello, now the old one may go.
    if (previous && previous !== ws) previous.close(1000);
    ctx.replacing.now = false;
  }

  function onDisconnect(ws: WebSocket, reason: string) {
    const fatal = FATAL_DISCONNECTS[reason];
    if (fatal) return ctx.degrade(reason, fatal);
    if (!ctx.isCurrent(ws) || ctx.replacing.now) return;
    ctx.replacing.now = true;
    logger.info({ reason }, 'slack asked for a new connection: opening it before closing this one');
    ctx.connect().catch(() => {
      ctx.replacing.now = false;
      ctx.retryLater('replacement socket failed');
    });
  }

  /** `ready` makes `ws` the current socket and answers the one it replaces, if any. */
  return function onMessage(ws: WebSocket, text: string, ready: () => WebSocket | undefined) {
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return logger.warn('slack socket mode: a frame that is not JSON ignored');
    }
    const hello = helloFrameSchema.safeParse(frame);
    if (hello.success) return onHello(ws, hello.data.num_connections, ready());
    const disconnect = disconnectFrameSchema.safeParse(frame);
    if (disconnect.success) return onDisconnect(ws, disconnect.data.reason);
    const envelope = envelopeSchema.safeParse(frame);
    if (!envelope.success) return;
    // Acknowledged first, whatever follows: Slack retries what is not acked within 3 s.
    ws.send(JSON.stringify({ envelope_id: envelope.data.envelope_id }));
    ctx.onStatus({ lastEventAt: ctx.clock.now().toISOString() });
    if (seen.has(envelope.data.envelope_id)) return;
    remember(envelope.data.envelope_id);
    ctx.onEnvelope(envelope.data);
  };
}
