import type { Logger } from 'pino';
import { MercuryOpenError, openMercurySocket, type MercurySocket, type OpenFailure } from './mercury-socket';
import type { ConnectableDevice, InboundFrame } from './schemas';
import type { Clock } from '../../../core/clock';
import { WebexApiError } from './webex-http';
import { errorText } from '../../../core/error-body';

/** What to do after a socket closed or failed to open. */
export type Next =
  | { action: 'reconnect' }
  | { action: 'refresh-device' }
  | { action: 'register-device' }
  /** `deviceInUse`: another client holds our device now, so it must not be deleted. */
  | { action: 'stop'; error: string; deviceInUse?: boolean };

// The reasons Webex (and our own pong checks) use for closes that are routine.
const ROUTINE_1000_REASONS = ['idle', 'done (forced)', 'pong not received', 'pong mismatch'];

/** Close of a socket that was ready (the SDK's rules, with the bot's fatal cases spelled out). */
export function nextAfterClose(code: number, reason: string, afterShutdown: boolean): Next {
  const why = `${code}${reason ? ` '${reason}'` : ''}`;
  switch (code) {
    case 1001:
    case 1005:
    case 1006:
    case 1011:
      return { action: 'reconnect' };
    case 1000:
    case 3050:
      return ROUTINE_1000_REASONS.includes(reason.toLowerCase())
        ? { action: 'reconnect' }
        : { action: 'stop', error: `Webex closed the websocket (${why}); not reconnecting` };
    case 4000:
      // Only "replaced" means another connection of the same device took over; any other 4000 is a
      // server-side reset to reconnect from.
      return /replac/i.test(reason)
        ? { action: 'stop', error: `Webex replaced this websocket (${why}): another client uses the same device; not reconnecting`, deviceInUse: true }
        : { action: 'reconnect' };
    case 4001:
      // After a server `shutdown` the old socket is retired with 4001: routine then.
      return afterShutdown
        ? { action: 'reconnect' }
        : { action: 'stop', error: `Webex replaced this websocket (${why}); not reconnecting`, deviceInUse: true };
    case 4401:
      return { action: 'stop', error: `Webex refused the bot token on the websocket (${why}); check MSG_BOT_TOKEN` };
    case 4403:
      return { action: 'stop', error: `Webex forbids this bot the websocket (${why})` };
    default:
      return { action: 'stop', error: `Webex closed the websocket (${why}); not reconnecting` };
  }
}

/** A socket that never became ready. */
export function nextAfterOpenFailure(f: OpenFailure): Next {
  if (f.kind === 'http') {
    if (f.status === 404) return { action: 'register-device' };
    if (f.status === 401) return { action: 'stop', error: 'Webex refused the bot token on the websocket (HTTP 401); check MSG_BOT_TOKEN' };
    if (f.status === 403) return { action: 'stop', error: 'Webex forbids this bot the websocket (HTTP 403)' };
    return { action: 'reconnect' };
  }
  if (f.kind === 'closed') {
    if (f.code === 4400) return { action: 'stop', error: `Webex rejected the websocket request (4400 ${f.reason})` };
    if (f.code === 4401) return { action: 'stop', error: 'Webex refused the bot token on the websocket (4401); check MSG_BOT_TOKEN' };
    if (f.code === 4403) return { action: 'stop', error: 'Webex forbids this bot the websocket (4403)' };
    if (f.code === 1005) return { action: 'refresh-device' };
  }
  return { action: 'reconnect' };
}

export interface MercuryConnection {
  /** Resolves when first ready; rejects when a fatal error stops it first. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface MercuryOptions {
  token: string;
  agentFor?: (url: string) => import('node:http').Agent | undefined;
  clock: Clock;
  logger: Logger;
  /** 0 ≤ x < 1, for backoff jitter. */
  random: () => number;
  devices: {
    current(): ConnectableDevice | undefined;
    ensure(): Promise<ConnectableDevice>;
    reregister(): Promise<ConnectableDevice>;
  };
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
  readyTimeoutMs?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  onFrame(frame: InboundFrame): void;
  onConnected(connected: boolean): void;
  /** A fatal error: the connection stopped for good. */
  onFatal(error: string, deviceInUse: boolean): void;
}

export function createMercuryConnection(opts: MercuryOptions): MercuryConnection {
  const { clock, logger } = opts;
  const pingIntervalMs = opts.pingIntervalMs ?? 15_000;
  const pongTimeoutMs = opts.pongTimeoutMs ?? 14_000;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const backoffInitialMs = opts.backoffInitialMs ?? 1_000;
  const backoffMaxMs = opts.backoffMaxMs ?? 32_000;

  let running = false;
  let failures = 0;
  // `retired`: replaced or given up by us; its late frames and close mean nothing any more.
  type Slot = { socket: MercurySocket; retired: boolean };
  let current: Slot | undefined;
  let retryTimer: { cancel(): void } | undefined;
  let inflight: AbortController | undefined;
  let afterShutdown = false;
  let handingOver = false;
  let firstReady: { resolve(): void; reject(e: Error): void } | undefined;

  const stopFatally = (error: string, deviceInUse = false) => {
    logger.error({ err: error }, 'webex websocket stopped');
    running = false;
    retryTimer?.cancel();
    inflight?.abort();
    retire(current);
    current = undefined;
    opts.onConnected(false);
    opts.onFatal(error, deviceInUse);
    firstReady?.reject(new Error(error));
    firstReady = undefined;
  };

  // Half fixed, half random on an exponential base: relays sharing an outage do not reconnect in lockstep.
  const scheduleRetry = () => {
    if (!running) return;
    const base = Math.min(backoffMaxMs, backoffInitialMs * 2 ** Math.min(failures, 16));
    const delay = Math.round(base / 2 + (base / 2) * opts.random());
    failures += 1;
    logger.info({ delay_ms: delay, attempt: failures }, 'webex websocket: reconnecting after backoff');
    retryTimer = clock.setTimeout(() => void attempt(), delay);
  };

  const act = async (next: Next) => {
    if (!running) return;
    if (next.action === 'stop') return stopFatally(next.error, next.deviceInUse);
    if (next.action === 'refresh-device' || next.action === 'register-device') {
      try {
        await (next.action === 'refresh-device' ? opts.devices.ensure() : opts.devices.reregister());
      } catch (error) {
        if (error instanceof WebexApiError && error.isAuthFailure) return stopFatally(error.message);
        logger.warn({ err: errorText(error) }, 'webex device registration failed; retrying');
      }
    }
    scheduleRetry();
  };

  /** One attempt; frames and closes of a socket count only while it is the current one. */
  const retire = (slot: Slot | undefined) => {
    if (!slot || slot.retired) return;
    slot.retired = true;
    slot.socket.close(1000, 'Done');
  };

  const open = async (): Promise<Slot | Next> => {
    const device = opts.devices.current();
    if (!device) return { action: 'register-device' };
    const slot: Slot = { socket: undefined as unknown as MercurySocket, retired: false };
    inflight = new AbortController();
    try {
      slot.socket = await openMercurySocket({
        webSocketUrl: device.webSocketUrl,
        token: opts.token,
        clock,
        logger,
        pingIntervalMs,
        pongTimeoutMs,
        readyTimeoutMs,
        signal: inflight.signal,
        agentFor: opts.agentFor,
        // Frames of a socket still opening count: buffer_state and events may precede readiness.
        onFrame: (frame) => {
          if (slot.retired) return;
          if (frame.type === 'shutdown') {
            if (slot === current && !handingOver) void handover();
            return;
          }
          opts.onFrame(frame);
        },
        onClose: (code, reason) => {
          if (slot.retired || slot !== current) return;
          current = undefined;
          logger.info({ code, reason }, 'webex websocket closed');
          opts.onConnected(false);
          void act(nextAfterClose(code, reason, afterShutdown));
        },
      });
      return slot;
    } catch (error) {
      if (error instanceof MercuryOpenError) {
        logger.warn({ err: error.message }, 'webex websocket attempt failed');
        return nextAfterOpenFailure(error.failure);
      }
      throw error;
    }
  };

  const becomeReady = (slot: Slot) => {
    current = slot;
    failures = 0;
    afterShutdown = false;
    logger.info('webex websocket ready');
    opts.onConnected(true);
    firstReady?.resolve();
    firstReady = undefined;
  };

  const attempt = async () => {
    retryTimer = undefined;
    if (!running) return;
    const result = await open();
    if (!running) {
      if ('socket' in result) retire(result);
      return;
    }
    if ('socket' in result) becomeReady(result);
    else await act(result);
  };

  // Mercury asks clients to move: open the new socket before letting go of the old one.
  const handover = async () => {
    logger.info('webex websocket: server shutdown notice; opening a new socket');
    afterShutdown = true;
    handingOver = true;
    const old = current;
    const result = await open().finally(() => (handingOver = false));
    if (!running) {
      if ('socket' in result) retire(result);
      return;
    }
    if ('socket' in result) {
      becomeReady(result);
      retire(old);
    } else {
      // The old socket still works until the server retires it; its close decides then.
      logger.warn('webex websocket: handover failed; keeping the old socket');
    }
  };

  return {
    start() {
      if (running) return Promise.reject(new Error('webex websocket already started'));
      running = true;
      failures = 0;
      const ready = new Promise<void>((resolve, reject) => (firstReady = { resolve, reject }));
      void attempt();
      return ready;
    },
    async stop() {
      running = false;
      retryTimer?.cancel();
      inflight?.abort();
      const slot = current;
      current = undefined;
      retire(slot);
      if (slot) opts.onConnected(false);
      firstReady?.reject(new Error('webex websocket stopped before it was ready'));
      firstReady = undefined;
    },
  };
}
