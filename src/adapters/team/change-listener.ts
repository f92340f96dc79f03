import pg from 'pg';
import type { Logger } from 'pino';
import { databaseErrorMessage } from '../store-pg/database';
import type { RemoteChange, SharedIncidentStore } from '../store-pg/pg-store';
import type { TeamRepository } from '../store-pg/team-repository';
import { CHANGE_CHANNEL, type ChangeNotice } from '../store-pg/write-batch';

/** How long notices of other relays' changes gather before they are read back together. */
const NOTICE_WINDOW_MS = 25;

/** Where a human action recorded by one relay is announced to the relay that runs the incident. */
export const DECISION_CHANNEL = 'fault_relay_decisions';

/** What a person did on some relay that the owner of the incident applies: decide a request, keep a change, or approve toward a requirement. */
export type HumanActionKind = 'decision' | 'confirm' | 'vote';

/**
 * The team's LISTEN connection, of its own outside the pool: other relays' changes read back into
 * this relay's memory (`emit`), and human actions recorded by any relay handed to `onHumanAction`.
 * After a reconnect every recent incident is read again (notifications were missed).
 */
export function createChangeListener(opts: {
  store: SharedIncidentStore;
  databaseUrl: string;
  repo: TeamRepository;
  logger: Logger;
  emit(changes: RemoteChange[]): void;
  onHumanAction(incidentId: string, key: string, kind: HumanActionKind): void;
  reconnectDelay(attempt: number): number;
}) {
  const { store, logger, emit, reconnectDelay } = opts;
  const me = store.relayId;
  let stopped = false;
  let listener: pg.Client | undefined;
  /**
   * Incidents other relays changed, read back together a moment after the first notice: a new
   * fault is several commits on its owner (created, delivered, its first lines), and reading each
   * one back as it came made a second relay spend more on the first's incidents than on its own.
   */
  let noticed = new Set<string>();
  let noticeTimer: NodeJS.Timeout | undefined;
  let failedReads = 0;
  /** A read that failed is made again (the notice came once): else this relay shows the old state until the next change. */
  const readAgain = (ids: readonly string[], error: unknown) => {
    logger.warn({ err_message: databaseErrorMessage(error), incidents: ids.length }, 'could not read another relay\'s change; reading it again');
    for (const id of ids) noticed.add(id);
    if (stopped || noticeTimer) return;
    noticeTimer = setTimeout(readNoticed, reconnectDelay(failedReads++));
    noticeTimer.unref?.();
  };
  const readNoticed = () => {
    noticeTimer = undefined;
    const ids = [...noticed];
    noticed = new Set();
    store.refresh(ids).then(
      (changes) => {
        failedReads = 0;
        emit(changes);
      },
      (error: unknown) => readAgain(ids, error),
    );
  };
  store.onStale((ids) => store.refresh(ids).then(emit, (error: unknown) => readAgain(ids, error)));

  /** A human action recorded by a relay: a decision (q: the request's time), a confirm (k: 'confirm', q: the change) or a vote. */
  function humanAction(payload: string) {
    try {
      const d = JSON.parse(payload) as { i: string; q: string; k?: HumanActionKind };
      opts.onHumanAction(d.i, d.q, d.k ?? 'decision');
    } catch {
      /* not ours */
    }
  }

  function changeNotice(text: string) {
    let payload: Partial<ChangeNotice>;
    try {
      payload = JSON.parse(text) as typeof payload;
    } catch {
      return;
    }
    if (payload.r === me || !Array.isArray(payload.i)) return;
    if (payload.c && typeof payload.c === 'object') emit(store.countsChanged(payload.c));
    if (payload.i.length === 0) return;
    for (const id of payload.i) noticed.add(id);
    noticeTimer ??= setTimeout(readNoticed, NOTICE_WINDOW_MS);
  }

  async function listen(attempt = 0): Promise<void> {
    if (stopped) return;
    const client = new pg.Client({ connectionString: opts.databaseUrl, keepAlive: true });
    const retry = () => {
      if (stopped || listener !== client) return;
      listener = undefined;
      client.end().catch(() => {});
      setTimeout(() => void listen(attempt + 1), reconnectDelay(attempt)).unref?.();
    };
    listener = client;
    client.on('error', (error) => {
      logger.warn({ err_message: databaseErrorMessage(error) }, 'team change listener lost its connection; reconnecting');
      retry();
    });
    client.on('notification', (msg) => {
      if (!msg.payload) return;
      if (msg.channel === DECISION_CHANNEL) humanAction(msg.payload);
      else if (msg.channel === CHANGE_CHANNEL) changeNotice(msg.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      await client.query(`LISTEN ${DECISION_CHANNEL}`);
      if (attempt > 0) {
        emit(await store.refresh(await opts.repo.recentIncidentIds(new Date(Date.now() - 3_600_000))));
      }
    } catch (error) {
      logger.warn({ err_message: databaseErrorMessage(error) }, 'team change listener could not connect; retrying');
      retry();
    }
  }

  return {
    start: () => listen(),
    async stop(): Promise<void> {
      stopped = true;
      if (noticeTimer) clearTimeout(noticeTimer);
      const l = listener;
      listener = undefined;
      await l?.end().catch(() => {});
    },
  };
}
