import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import { inboundFrameSchema, type InboundFrame } from './schemas';
import type { Clock } from '../../../core/clock';
import { errorText } from '../../../core/error-body';

const FORCE_CLOSE_MS = 2_000;

/** Why a socket never became ready. */
export type OpenFailure =
  | { kind: 'http'; status: number }
  | { kind: 'closed'; code: number; reason: string }
  | { kind: 'network'; message: string }
  | { kind: 'timeout' };

export class MercuryOpenError extends Error {
  override readonly name = 'MercuryOpenError';
  constructor(readonly failure: OpenFailure) {
    super(describeFailure(failure));
  }
}

export interface MercurySocket {
  /** Close from our side; `onClose` still reports it, with this code and reason. */
  close(code: number, reason: string): void;
}

export interface MercurySocketOptions {
  /** The device's webSocketUrl; the protocol flags are added here. */
  webSocketUrl: string;
  token: string;
  clock: Clock;
  logger: Logger;
  pingIntervalMs: number;
  pongTimeoutMs: number;
  readyTimeoutMs: number;
  /** Aborts an attempt that is not ready yet. */
  signal?: AbortSignal;
  /** How to reach the socket's host: a proxy tunnel (HTTPS_PROXY …), or undefined to connect directly. */
  agentFor?: (url: string) => import('node:http').Agent | undefined;
  /** Every inbound frame except pongs, already acknowledged. */
  onFrame(frame: InboundFrame): void;
  /** Once, after the socket was ready, when it closes for any reason. */
  onClose(code: number, reason: string): void;
}

/** The flags every Webex client sets; without `outboundWireFormat=text` frames are not JSON text. */
export function prepareSocketUrl(webSocketUrl: string, now: Date): string {
  const url = new URL(webSocketUrl);
  url.searchParams.set('outboundWireFormat', 'text');
  url.searchParams.set('bufferStates', 'true');
  url.searchParams.set('aliasHttpStatus', 'true');
  url.searchParams.set('clientTimestamp', String(now.getTime()));
  return url.toString();
}

/**
 * One Mercury connection: authorization frame, wait for `mercury.buffer_state`, then an
 * application-level ping loop. Resolves when ready; rejects with `MercuryOpenError` otherwise.
 */
export function openMercurySocket(opts: MercurySocketOptions): Promise<MercurySocket> {
  const { clock, logger } = opts;
  const url = prepareSocketUrl(opts.webSocketUrl, clock.now());
  const agent = opts.agentFor?.(url);
  const ws = new WebSocket(url, { handshakeTimeout: opts.readyTimeoutMs, ...(agent ? { agent } : {}) });

  let ready = false;
  let settled = false;
  let closed = false;
  let localClose: { code: number; reason: string } | undefined;
  const checkSequence = sequenceCheck(logger);

  const send = (frame: unknown) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  };

  const stopTimers = () => {
    heartbeat.cancel();
    readyTimer.cancel();
  };

  // Our own closes: a dead peer (no pong) is cut at once; otherwise the close handshake gets
  // a moment before the connection is cut anyway.
  const closeLocally = (code: number, reason: string) => {
    if (closed || localClose) return;
    localClose = { code, reason };
    stopTimers();
    const peerAlive = reason !== 'Pong not received' && ws.readyState === WebSocket.OPEN;
    if (!peerAlive) return void ws.terminate();
    ws.close(code, reason);
    clock.setTimeout(() => ws.terminate(), FORCE_CLOSE_MS);
  };

  const heartbeat = createHeartbeat({ send, clock, logger, pingIntervalMs: opts.pingIntervalMs, pongTimeoutMs: opts.pongTimeoutMs, dead: (reason) => closeLocally(1000, reason) });

  let resolveOpen!: (s: MercurySocket) => void;
  let rejectOpen!: (e: MercuryOpenError) => void;
  const opened = new Promise<MercurySocket>((resolve, reject) => {
    resolveOpen = resolve;
    rejectOpen = reject;
  });

  const fail = (failure: OpenFailure) => {
    if (settled) return;
    settled = true;
    stopTimers();
    rejectOpen(new MercuryOpenError(failure));
    ws.terminate();
  };

  const readyTimer = clock.setTimeout(() => fail({ kind: 'timeout' }), opts.readyTimeoutMs);
  opts.signal?.addEventListener('abort', () => fail({ kind: 'closed', code: 1000, reason: 'Done' }), { once: true });

  ws.on('unexpected-response', (_req, res) => {
    res.resume();
    fail({ kind: 'http', status: res.statusCode ?? 0 });
  });

  ws.on('error', (error) => {
    if (!settled) fail({ kind: 'network', message: (error as { code?: string }).code ?? error.message });
    else logger.debug({ err: error.message }, 'webex websocket error');
  });

  ws.on('open', () => {
    send({
      id: randomUUID(),
      type: 'authorization',
      data: { token: `Bearer ${opts.token}` },
      trackingId: `fault-relay_${randomUUID()}`,
    });
  });

  ws.on('message', (raw) => {
    const frame = readFrame(raw.toString(), logger);
    if (!frame) return;
    // Unacknowledged frames are redelivered by Mercury; ack before handling, as the SDK does.
    if (frame.id) send({ messageId: frame.id, type: 'ack' });
    checkSequence(frame);
    if (frame.type === 'pong') {
      heartbeat.onPong(frame);
      return;
    }
    const eventType = frame.data?.eventType;
    if (!ready && !frame.type && (eventType === 'mercury.buffer_state' || eventType === 'mercury.registration_status')) {
      ready = true;
      settled = true;
      readyTimer.cancel();
      resolveOpen({ close: closeLocally });
      heartbeat.ping();
    }
    opts.onFrame(frame);
  });

  ws.on('close', (code, reasonBuf) => {
    closed = true;
    stopTimers();
    const reported = localClose ?? fixCloseCode(code, reasonBuf.toString());
    if (!ready) {
      fail({ kind: 'closed', ...reported });
      return;
    }
    opts.onClose(reported.code, reported.reason);
  });

  return opened;
}

/** A frame as Mercury sends it, or undefined (logged) for one that is not. */
function readFrame(text: string, logger: Logger): InboundFrame | undefined {
  try {
    const parsed = inboundFrameSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(parsed.error.message);
    return parsed.data;
  } catch (error) {
    logger.warn({ err: errorText(error) }, 'webex websocket: unreadable frame ignored');
    return undefined;
  }
}

/** Mercury numbers its frames: a gap means events were lost, which is said (the SDK does no more). */
function sequenceCheck(logger: Logger): (frame: InboundFrame) => void {
  let expected: number | undefined;
  return (frame) => {
    if (frame.sequenceNumber === undefined) return;
    if (expected !== undefined && frame.sequenceNumber !== expected) logger.warn({ expected, got: frame.sequenceNumber }, 'webex websocket: sequence gap, events may be lost');
    expected = frame.sequenceNumber + 1;
  };
}

/**
 * The application-level ping loop: one ping at a time, the next one an interval after its pong; a
 * pong that does not come in time, or answers another ping, means the socket is dead.
 */
function createHeartbeat(o: { send(frame: unknown): void; clock: Clock; logger: Logger; pingIntervalMs: number; pongTimeoutMs: number; dead(reason: string): void }) {
  let pingTimer: { cancel(): void } | undefined;
  let pongTimer: { cancel(): void } | undefined;
  let pendingPingId: string | undefined;
  const ping = () => {
    pendingPingId = randomUUID();
    o.send({ id: pendingPingId, type: 'ping' });
    pongTimer = o.clock.setTimeout(() => {
      o.logger.warn('webex websocket: pong not received; reconnecting');
      o.dead('Pong not received');
    }, o.pongTimeoutMs);
  };
  return {
    ping,
    onPong(frame: InboundFrame) {
      if (frame.id !== pendingPingId) {
        o.logger.warn('webex websocket: pong for another ping; reconnecting');
        return o.dead('Pong mismatch');
      }
      pongTimer?.cancel();
      pingTimer = o.clock.setTimeout(ping, o.pingIntervalMs);
    },
    cancel() {
      pingTimer?.cancel();
      pongTimer?.cancel();
    },
  };
}

/** Some stacks drop 4xxx codes but keep the reason; map the reasons Webex is known to use. */
function fixCloseCode(code: number, reason: string): { code: number; reason: string } {
  if (code !== 1005 || !reason) return { code, reason };
  const r = reason.toLowerCase();
  if (r === 'replaced') return { code: 4000, reason };
  if (r.startsWith('authentication')) return { code: 1008, reason };
  return { code, reason };
}

function describeFailure(f: OpenFailure): string {
  switch (f.kind) {
    case 'http':
      return `websocket upgrade refused with HTTP ${f.status}`;
    case 'closed':
      return `websocket closed before it was ready (${f.code}${f.reason ? ` ${f.reason}` : ''})`;
    case 'network':
      return `websocket unreachable: ${f.message}`;
    case 'timeout':
      return 'websocket not ready in time (no buffer_state after authorization)';
  }
}
