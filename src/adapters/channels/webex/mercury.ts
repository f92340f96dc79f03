import type { Logger } from 'pino';
import { MercuryOpenError, openMercurySocket, type MercurySocket } from './mercury-socket';
import { nextAfterClose, nextAfterOpenFailure, type Next } from './mercury-next';
import type { ConnectableDevice, InboundFrame } from './schemas';
import type { Clock } from '../../../core/clock';
import { WebexApiError } from './webex-http';
import { errorText } from '../../../core/error-body';

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

/** A socket of this connection; `retired`: replaced or given up by us, its late frames and close mean nothing any more. */
type Slot = { socket: MercurySocket; retired: boolean };

function retire(slot: Slot | undefined): void {
  if (!slot || slot.retired) return;
  slot.retired = true;
  slot.socket.close(1000, 'Done');
}

/**
 * Opens one socket on the device's current URL, or says what to do instead (register the device,
 * reconnect, stop). A retired socket's frames and close are dropped here; a `shutdown` frame is the
 * server asking to move.
 */
async function openSlot(opts: MercuryOptions, signal: AbortSignal, on: { shutdown(slot: Slot): void; closed(slot: Slot, code: number, reason: string): void }): Promise<Slot | Next> {
  const device = opts.devices.current();
  if (!device) return { action: 'register-device' };
  const slot: Slot = { socket: undefined as unknown as MercurySocket, retired: false };
  try {
    slot.socket = await openMercurySocket({
      webSocketUrl: device.webSocketUrl,
      token: opts.token,
      clock: opts.clock,
      logger: opts.logger,
      pingIntervalMs: opts.pingIntervalMs ?? 15_000,
      pongTimeoutMs: opts.pongTimeoutMs ?? 14_000,
      readyTimeoutMs: opts.readyTimeoutMs ?? 30_000,
      signal,
      agentFor: opts.agentFor,
      // Frames of a socket still opening count: buffer_state and events may precede readiness.
      onFrame: (frame) => {
        if (slot.retired) return;
        if (frame.type === 'shutdown') return on.shutdown(slot);
        opts.onFrame(frame);
      },
      onClose: (code, reason) => {
        if (!slot.retired) on.closed(slot, code, reason);
      },
    });
    return slot;
  } catch (error) {
    if (error instanceof MercuryOpenError) {
      opts.logger.warn({ err: error.message }, 'webex websocket attempt failed');
      return nextAfterOpenFailure(error.failure);
    }
    throw error;
  }
}

/** Half fixed, half random on an exponential base: relays sharing an outage do not reconnect in lockstep. */
function backoffDelay(opts: Pick<MercuryOptions, 'backoffInitialMs' | 'backoffMaxMs' | 'random'>, failures: number): number {
  const base = Math.min(opts.backoffMaxMs ?? 32_000, (opts.backoffInitialMs ?? 1_000) * 2 ** Math.min(failures, 16));
  return Math.round(base / 2 + (base / 2) * opts.random());
}

/** The device again, as a close asked (refreshed or registered anew); the reason to stop when the token is refused, else retried later. */
async function renewDevice(opts: MercuryOptions, action: 'refresh-device' | 'register-device'): Promise<string | undefined> {
  try {
    await (action === 'refresh-device' ? opts.devices.ensure() : opts.devices.reregister());
  } catch (error) {
    if (error instanceof WebexApiError && error.isAuthFailure) return error.message;
    opts.logger.warn({ err: errorText(error) }, 'webex device registration failed; retrying');
  }
  return undefined;
}

/** What start() waits for: the first socket ready, or the reason none will be. */
function firstReadiness() {
  let waiting: { resolve(): void; reject(e: Error): void } | undefined;
  return {
    wait: () => new Promise<void>((resolve, reject) => (waiting = { resolve, reject })),
    resolve() {
      waiting?.resolve();
      waiting = undefined;
    },
    reject(why: string) {
      waiting?.reject(new Error(why));
      waiting = undefined;
    },
  };
}

export function createMercuryConnection(opts: MercuryOptions): MercuryConnection {
  const { clock, logger } = opts;

  let running = false;
  let failures = 0;
  let current: Slot | undefined;
  let retryTimer: { cancel(): void } | undefined;
  let inflight: AbortController | undefined;
  let afterShutdown = false;
  let handingOver = false;
  const firstReady = firstReadiness();

  /** Stops trying: no retry, no attempt in flight, the current socket let go; a start() still waiting learns why. */
  const halt = (why: string) => {
    running = false;
    retryTimer?.cancel();
    inflight?.abort();
    const slot = current;
    current = undefined;
    retire(slot);
    firstReady.reject(why);
    return slot;
  };

  const stopFatally = (error: string, deviceInUse = false) => {
    logger.error({ err: error }, 'webex websocket stopped');
    halt(error);
    opts.onConnected(false);
    opts.onFatal(error, deviceInUse);
  };

  const scheduleRetry = () => {
    if (!running) return;
    const delay = backoffDelay(opts, failures++);
    logger.info({ delay_ms: delay, attempt: failures }, 'webex websocket: reconnecting after backoff');
    retryTimer = clock.setTimeout(() => void attempt(), delay);
  };

  const act = async (next: Next) => {
    if (!running) return;
    if (next.action === 'stop') return stopFatally(next.error, next.deviceInUse);
    if (next.action === 'refresh-device' || next.action === 'register-device') {
      const refused = await renewDevice(opts, next.action);
      if (refused) return stopFatally(refused);
    }
    scheduleRetry();
  };

  /** One attempt; frames and closes of a socket count only while it is the current one. */
  const open = async (): Promise<Slot | Next> => {
    inflight = new AbortController();
    return openSlot(opts, inflight.signal, {
      shutdown: (slot) => {
        if (slot === current && !handingOver) void handover();
      },
      closed: (slot, code, reason) => {
        if (slot !== current) return;
        current = undefined;
        logger.info({ code, reason }, 'webex websocket closed');
        opts.onConnected(false);
        void act(nextAfterClose(code, reason, afterShutdown));
      },
    });
  };

  const becomeReady = (slot: Slot) => {
    current = slot;
    failures = 0;
    afterShutdown = false;
    logger.info('webex websocket ready');
    opts.onConnected(true);
    firstReady.resolve();
  };

  /** Once stopped, a socket that opened meanwhile is let go: whether `result` may still be acted on. */
  const wanted = (result: Slot | Next) => {
    if (!running && 'socket' in result) retire(result);
    return running;
  };

  const attempt = async () => {
    retryTimer = undefined;
    if (!running) return;
    const result = await open();
    if (!wanted(result)) return;
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
    if (!wanted(result)) return;
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
      const ready = firstReady.wait();
      void attempt();
      return ready;
    },
    async stop() {
      if (halt('webex websocket stopped before it was ready')) opts.onConnected(false);
    },
  };
}
