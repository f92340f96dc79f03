import pg from 'pg';
import type { Logger } from 'pino';
import { errorText } from '../../core/error-body';

export interface LeaderLock {
  role(): 'leader' | 'standby';
  /** Resolves after the first try: the relay then knows whether it leads or stands by. */
  first: Promise<void>;
  stop(): Promise<void>;
}

/**
 * A session-level advisory lock on a connection of its own, tried every `retryMs` until held. The
 * lock lives as long as that connection: a relay that dies (or loses the database) lets go of it,
 * and the next try of another relay takes it.
 */
export function holdLeaderLock(opts: { databaseUrl: string; lock: number; retryMs: number; logger: Logger; name: string; onGain: () => void; onLose: () => void }): LeaderLock {
  const { logger } = opts;
  let client: pg.Client | undefined;
  let leading = false;
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  let firstDone: () => void = () => {};
  const first = new Promise<void>((resolve) => (firstDone = resolve));
  const lose = () => {
    if (!leading) return;
    leading = false;
    logger.warn('lost team leadership (database connection gone)');
    opts.onLose();
  };
  const attempt = async () => {
    if (done) return;
    try {
      if (!client) {
        const c = new pg.Client({ connectionString: opts.databaseUrl, keepAlive: true });
        c.on('error', () => {
          if (client === c) client = undefined;
          c.end().catch(() => {});
          lose();
        });
        await c.connect();
        client = c;
      }
      if (!leading) {
        const res = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [opts.lock]);
        if (res.rows[0]?.ok && !done) {
          leading = true;
          logger.info({ relay: opts.name }, 'this relay leads the team (holds the operator channels\' connections)');
          opts.onGain();
        }
      } else {
        // Still connected, so still holding it.
        await client.query('SELECT 1');
      }
    } catch {
      client?.end().catch(() => {});
      client = undefined;
      lose();
    }
    firstDone();
    if (!done) {
      timer = setTimeout(() => void attempt(), opts.retryMs);
      timer.unref?.();
    }
  };
  void attempt();
  return {
    role: () => (leading ? 'leader' : 'standby'),
    first,
    async stop() {
      done = true;
      if (timer) clearTimeout(timer);
      lose();
      await client?.end().catch(() => {});
    },
  };
}

/** One platform connection an operator channel holds (Webex's websocket, Slack's Socket Mode). */
export interface ChannelSocket {
  name: string;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * Every channel's socket under one rule: a laptop relay holds them all from the start; a team relay
 * only while it leads (a platform counts each socket, and two holders would split the clicks), taking
 * them over when it gains the lock and dropping them when it loses it. A socket that fails to open is
 * logged and left to its channel, which reports it on /health.
 */
export function holdChannelSockets(opts: {
  sockets: readonly ChannelSocket[];
  logger: Logger;
  /** The team's leader lock (TeamCoordinator.lead bound to its key); absent on a laptop relay. */
  lead?: (onGain: () => void, onLose: () => void) => LeaderLock;
}): { role(): 'leader' | 'standby'; first: Promise<void> } {
  const { sockets, logger } = opts;
  const connect = () => {
    for (const s of sockets) s.connect().catch((error: unknown) => logger.error({ channel: s.name, err_message: errorText(error) }, `${s.name} connection stopped`));
  };
  const disconnect = () => {
    for (const s of sockets) s.disconnect().catch((error: unknown) => logger.warn({ channel: s.name, err_message: errorText(error) }, `${s.name} did not disconnect cleanly`));
  };
  if (!opts.lead || sockets.length === 0) {
    connect();
    return { role: () => 'leader', first: Promise.resolve() };
  }
  const lock = opts.lead(connect, disconnect);
  return { role: () => lock.role(), first: lock.first };
}
