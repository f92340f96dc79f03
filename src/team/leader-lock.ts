import pg from 'pg';
import type { Logger } from 'pino';

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
          logger.info({ relay: opts.name }, 'this relay leads the team (holds the Webex connection)');
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
