import type { Agent } from 'node:http';
import WebSocket from 'ws';
import type { Logger } from 'pino';
import type { Clock } from '../../../core/clock';
import type { Envelope } from './schemas';
import { createFrameHandler } from './socket-frames';
import { SlackApiError } from './web-api';
import { errorText } from '../../../core/error-body';

export interface SocketModeOptions {
  /** `apps.connections.open`: a fresh, single-use URL for every (re)connect. */
  openUrl(): Promise<string>;
  clock: Clock;
  logger: Logger;
  random?: () => number;
  /** The SDK's default: ping every 5 s; a ping still unanswered at the next one means the socket is dead. */
  pingIntervalMs?: number;
  /** How to reach the socket's host: a proxy tunnel (HTTPS_PROXY …), or undefined to connect directly. */
  agentFor?: (url: string) => Agent | undefined;
  /** Called after the envelope was acknowledged, once per envelope id. */
  onEnvelope(envelope: Envelope): void;
  onStatus(patch: { connected?: boolean; degraded?: string; degradedReason?: string; warning?: string; error?: string; lastEventAt?: string }): void;
}

/** Errors of apps.connections.open that a retry cannot fix. */
const FATAL_OPEN_ERRORS = new Set(['invalid_auth', 'not_authed', 'not_allowed_token_type', 'account_inactive', 'token_revoked', 'missing_scope']);

/**
 * Slack Socket Mode, outbound only. Every envelope is acknowledged before it is handed on (Slack's
 * 3 s budget), and handed on once even when Slack retries it. A `refresh_requested` or `warning`
 * disconnect opens the next socket before the old one is dropped, so no click falls into the gap.
 */
export function createSocketMode(opts: SocketModeOptions) {
  const { clock, logger } = opts;
  const random = opts.random ?? Math.random;
  const pingIntervalMs = opts.pingIntervalMs ?? 5_000;
  const live = new Set<WebSocket>();
  // Every socket not yet closed, said hello or not: stop() and a degraded state close them all.
  const all = new Set<WebSocket>();
  let current: WebSocket | undefined;
  let running = false;
  let failures = 0;
  let pending: { cancel(): void } | undefined;
  const replacing = { now: false };
  // Bumped by start() and stop(): a URL minted for an earlier leadership term opens no socket.
  let generation = 0;
  // start() settles on the first hello, or on a refusal that no retry can fix.
  let settleStart: { resolve(): void; reject(error: Error): void } | undefined;

  const retryLater = (why: string) => {
    if (!running || pending) return;
    const base = Math.min(32_000, 1_000 * 2 ** Math.min(failures++, 16));
    logger.warn({ why, attempt: failures }, 'slack socket mode: reconnecting');
    pending = clock.setTimeout(() => {
      pending = undefined;
      void connect().catch(() => undefined);
    }, Math.round(base / 2 + (base / 2) * random()));
  };

  const degrade = (reason: string, message: string) => {
    running = false;
    pending?.cancel();
    pending = undefined;
    for (const ws of all) ws.close(1000);
    opts.onStatus({ connected: false, degraded: message, degradedReason: reason });
    settleStart?.reject(new Error(message));
    logger.error({ degraded: message }, 'slack socket mode stopped');
  };

  const onMessage = createFrameHandler({ clock, logger, onStatus: opts.onStatus, onEnvelope: opts.onEnvelope, liveSockets: () => live.size, isCurrent: (ws) => ws === current, replacing, degrade, connect, retryLater });

  /** Opens one socket; resolves at its `hello`. */
  function connect(): Promise<void> {
    const term = generation;
    return new Promise<void>((resolve, reject) => {
      opts.openUrl().then((url) => {
        // Stopped, or stopped and started again, while the URL was minted: this attempt is not wanted.
        if (!running || term !== generation) return reject(new Error('slack socket mode stopped'));
        const agent = opts.agentFor?.(url);
        const ws = new WebSocket(url, agent ? { agent } : {});
        all.add(ws);
        const ping = heartbeat(ws, clock, pingIntervalMs);
        ws.on('message', (raw) => {
          if (term !== generation) return void ws.close(1000); // a socket of an earlier term, closing
          onMessage(ws, raw.toString(), () => {
            live.add(ws);
            const previous = current;
            current = ws;
            failures = 0;
            ping.start();
            resolve();
            settleStart?.resolve();
            return previous;
          });
        });
        ws.on('error', (error) => logger.warn({ err: error.message }, 'slack websocket error'));
        ws.on('close', () => {
          ping.cancel();
          const wasCurrent = current === ws;
          all.delete(ws);
          live.delete(ws);
          if (wasCurrent) current = undefined;
          if (live.size === 0) opts.onStatus({ connected: false });
          reject(new Error('slack websocket closed before hello'));
          if (wasCurrent && !replacing.now) retryLater('socket closed');
        });
      }, (error: unknown) => {
        if (error instanceof SlackApiError && FATAL_OPEN_ERRORS.has(error.code)) {
          degrade('token_refused', `Slack refused the app token (${error.code}): check SLACK_APP_TOKEN`);
          return reject(error);
        }
        opts.onStatus({ error: errorText(error) });
        retryLater(errorText(error));
        reject(error);
      });
    });
  }

  return {
    /** Resolves at the first `hello`; rejects when the token is refused (then the status says degraded). */
    start(): Promise<void> {
      running = true;
      generation++;
      failures = 0;
      replacing.now = false;
      settleStart?.reject(new Error('slack socket mode restarted'));
      const started = new Promise<void>((resolve, reject) => (settleStart = { resolve, reject }));
      // A transient failure schedules the next try itself (retryLater); start() waits for its hello.
      void connect().catch(() => undefined);
      return started;
    },
    async stop(): Promise<void> {
      running = false;
      generation++;
      pending?.cancel();
      pending = undefined;
      // A start() still waiting for its hello learns it will not come.
      settleStart?.reject(new Error('slack socket mode stopped'));
      settleStart = undefined;
      for (const ws of all) ws.close(1000);
    },
    openSockets: () => live.size,
  };
}
export type SocketMode = ReturnType<typeof createSocketMode>;

/** Pings every interval once started; a ping still unanswered at the next one means the socket is dead. */
function heartbeat(ws: WebSocket, clock: Clock, intervalMs: number) {
  let awaitingPong = false;
  let timer: { cancel(): void } | undefined;
  const schedule = () => {
    timer = clock.setTimeout(() => {
      if (awaitingPong) return ws.terminate(); // no pong since the last ping: dead, reconnect
      awaitingPong = true;
      ws.ping();
      schedule();
    }, intervalMs);
  };
  ws.on('pong', () => (awaitingPong = false));
  return { start: schedule, cancel: () => timer?.cancel() };
}
