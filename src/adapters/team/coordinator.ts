import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import type { Logger } from 'pino';
import { jitteredBackoff } from '../../core/backoff';
import type { Incident } from '../../core/incidents/model';
import { databaseErrorMessage } from '../store-pg/database';
import type { DecisionSeal } from './decision-seal';
import { DECISION_CHANNEL } from './decisions';
import { holdLeaderLock, type LeaderLock } from './leader-lock';
import { createNewIncidentLock } from './new-incident-lock';
import { type RemoteChange, type SharedIncidentStore } from '../store-pg/pg-store';
import { CHANGE_CHANNEL, type ChangeNotice } from '../store-pg/write-batch';

/** How long notices of other relays' changes gather before they are read back together. */
const NOTICE_WINDOW_MS = 25;
import { teamRepository } from '../store-pg/team-repository';

/** Advisory-lock keys (any fixed numbers, one per purpose; the new-incident lock's is in new-incident-lock.ts). */

/** What a person did on some relay that the owner of the incident applies: decide a request, or keep a change. */
export type HumanActionKind = 'decision' | 'confirm' | 'vote';
export { NEW_INCIDENT_LOCK } from './new-incident-lock';
/** Held by the relay that keeps every operator channel's socket (Webex, Slack); the same key Webex alone used before. */
export const CHANNELS_LEADER_LOCK = 0x7765_6278;
/** @deprecated the lock now covers every channel: use CHANNELS_LEADER_LOCK. */
export const WEBEX_LEADER_LOCK = CHANNELS_LEADER_LOCK;

export interface TeamOptions {
  store: SharedIncidentStore;
  /** For the listener and the leader lock: connections of their own, outside the pool. */
  databaseUrl: string;
  name?: string;
  /** A relay silent this long is taken to be dead: another adopts its incidents. */
  leaseMs: number;
  /** Signs the decisions and confirms this relay writes, and checks the ones it applies (TEAM_DECISION_KEY). */
  seal: DecisionSeal;
  logger: Logger;
  /** How often this relay says it is alive and looks for dead ones (default: a fifth of the lease). */
  heartbeatMs?: number;
  /**
   * How long a new fault waits for the team's new-incident lock before it is refused (503, Splunk
   * retries); shorter than the driver's query timeout, so the server cancels the wait itself.
   */
  lockWaitMs?: number;
}

/** An incident this relay adopted from a dead one, as the database held it. */
export interface Adoption {
  incident: Incident;
  from: string;
}

/**
 * What makes several relays on one database one team relay: heartbeats and takeover of a dead
 * relay's incidents, the lock that keeps a new fault to one incident, claims that deliver each
 * alert once (row locks with SKIP LOCKED), LISTEN/NOTIFY so every relay's memory and /events
 * follow the others' changes, and a leadership lock for what only one relay may hold (the operator channels' sockets).
 */
export function createTeamCoordinator(opts: TeamOptions) {
  const { store, logger } = opts;
  const pool = store.pool;
  const repo = teamRepository(pool);
  const me = store.relayId;
  const name = opts.name ?? `${hostname()}:${process.pid}`;
  const heartbeatMs = opts.heartbeatMs ?? Math.max(200, Math.floor(opts.leaseMs / 5));
  const leaseSeconds = opts.leaseMs / 1000;
  const reconnectDelay = jitteredBackoff({ baseMs: 250, maxMs: 5_000 });
  const changeHandlers = new Set<(changes: RemoteChange[]) => void>();
  const adoptionHandlers = new Set<(adopted: Adoption[]) => void>();
  const decisionHandlers = new Set<(incidentId: string, key: string, kind: HumanActionKind) => Promise<void>>();
  const beatHandlers = new Set<() => Promise<void>>();
  let stopped = false;
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let listener: pg.Client | undefined;
  const leaders: LeaderLock[] = [];

  const emit = (changes: RemoteChange[]) => {
    if (changes.length) for (const h of changeHandlers) h(changes);
  };
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
  /**
   * Since when this relay's heartbeats have been reaching the database without a gap. After an
   * outage every relay's heartbeat is old: a relay adopts nothing until it has itself been back for
   * a whole lease, which gives the others the time to show they are alive.
   */
  let beatingSince: number | undefined;
  /** At start the relay may adopt at once: relays that stopped cleanly or long ago left work behind. */
  let firstBeat = true;

  async function beat(): Promise<void> {
    try {
      await repo.heartbeat(me, name);
    } catch (error) {
      beatingSince = undefined;
      throw error;
    }
    beatingSince ??= Date.now();
    try {
      if (Date.now() - beatingSince >= opts.leaseMs || firstBeat) await adoptFromDead();
      firstBeat = false;
    } finally {
      // The safety nets run even when adoption failed this time.
      for (const h of beatHandlers) await h().catch((error: unknown) => logger.warn({ err_message: databaseErrorMessage(error) }, 'team heartbeat task failed'));
    }
  }

  /** Open incidents of relays whose heartbeat stopped become this relay's, one row lock each. */
  async function adoptFromDead(): Promise<void> {
    const rows = await repo.adoptFromDead(me, leaseSeconds);
    if (rows.length === 0) return;
    const from = new Map(rows.map((r) => [r.incident_id, r.owner]));
    emit(await store.refresh([...from.keys()]));
    // Memory may have held the same record already (only the owner changed): read it from there.
    const adopted = [...from].flatMap(([id, owner]) => {
      const incident = store.get(id);
      return incident ? [{ incident, from: owner }] : [];
    });
    for (const a of adopted) store.adopted(a.incident);
    logger.warn({ adopted: adopted.map((a) => a.incident.incident_id), from: [...new Set(from.values())] }, 'took over incidents of a relay that stopped');
    for (const h of adoptionHandlers) h(adopted);
  }

  function scheduleBeat() {
    if (stopped) return;
    heartbeatTimer = setTimeout(() => {
      beat()
        .catch((error: unknown) => logger.warn({ err_message: databaseErrorMessage(error) }, 'team heartbeat failed'))
        .finally(scheduleBeat);
    }, heartbeatMs);
    heartbeatTimer.unref?.();
  }

  /** LISTEN on a connection of its own; after a reconnect every open incident is read again (notifications were missed). */
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
      if (msg.channel === DECISION_CHANNEL && msg.payload) {
        try {
          // A human action recorded by a relay: a decision (q: the request's time) or a confirm (k: 'confirm', q: the change).
          const d = JSON.parse(msg.payload) as { i: string; q: string; k?: HumanActionKind };
          for (const h of decisionHandlers) h(d.i, d.q, d.k ?? 'decision').catch((error: unknown) => logger.error({ err_message: databaseErrorMessage(error) }, 'a decision from another relay could not be applied'));
        } catch {
          /* not ours */
        }
        return;
      }
      if (msg.channel !== CHANGE_CHANNEL || !msg.payload) return;
      let payload: Partial<ChangeNotice>;
      try {
        payload = JSON.parse(msg.payload) as typeof payload;
      } catch {
        return;
      }
      if (payload.r === me || !Array.isArray(payload.i)) return;
      if (payload.c && typeof payload.c === 'object') emit(store.countsChanged(payload.c));
      if (payload.i.length === 0) return;
      for (const id of payload.i) noticed.add(id);
      noticeTimer ??= setTimeout(readNoticed, NOTICE_WINDOW_MS);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      await client.query(`LISTEN ${DECISION_CHANNEL}`);
      if (attempt > 0) {
        emit(await store.refresh(await repo.recentIncidentIds(new Date(Date.now() - 3_600_000))));
      }
    } catch (error) {
      logger.warn({ err_message: databaseErrorMessage(error) }, 'team change listener could not connect; retrying');
      retry();
    }
  }

  const newIncidentLock = createNewIncidentLock({ pool, store, emit, lockWaitMs: opts.lockWaitMs ?? 10_000 });

  return {
    relayId: me,
    name,
    async start(): Promise<void> {
      await beat();
      scheduleBeat();
      await listen();
    },
    /** Changes other relays made, as this relay's memory now holds them. */
    onRemoteChanges(handler: (changes: RemoteChange[]) => void): () => void {
      changeHandlers.add(handler);
      return () => changeHandlers.delete(handler);
    },
    onAdopted(handler: (adopted: Adoption[]) => void): () => void {
      adoptionHandlers.add(handler);
      return () => adoptionHandlers.delete(handler);
    },

    /**
     * A new-incident intake, one relay at a time per fault across the team (different faults go on in
     * parallel): under the lock the database's open incident for this fault is read into memory first.
     */
    newIncidentLock,

    /** Decisions recorded by any relay (this one included): the owner applies them. */
    onDecision(handler: (incidentId: string, key: string, kind: HumanActionKind) => Promise<void>): () => void {
      decisionHandlers.add(handler);
      return () => decisionHandlers.delete(handler);
    },
    /** Runs with every heartbeat: the safety net for a notification missed while the listener reconnected. */
    onBeat(handler: () => Promise<void>): () => void {
      beatHandlers.add(handler);
      return () => beatHandlers.delete(handler);
    },
    pool,
    seal: opts.seal,
    /** The team's SQL (src/adapters/store-pg/team-repository.ts) on this relay's pool. */
    repo,
    owns: (incidentId: string) => store.ownerOf(incidentId) === me,

    /** Whether this relay may deliver a queued incident: its own, or a dead relay's once adopted. */
    mayDeliver: (incidentId: string) => store.ownerOf(incidentId) === me,

    /**
     * Takes a queued incident for delivery: exactly one relay gets `true`, by a row lock taken
     * with SKIP LOCKED and a state check in the same statement.
     */
    async claim(incidentId: string): Promise<boolean> {
      await store.flush();
      return repo.claimDelivery(incidentId, me);
    },

    /**
     * Holds `lock` while this relay lives: `onGain` runs when it gets it, `onLose` when its
     * connection goes (another relay gets it within a heartbeat). For the channels' sockets (holdChannelSockets).
     */
    lead(lock: number, onGain: () => void, onLose: () => void): LeaderLock {
      const held = holdLeaderLock({ databaseUrl: opts.databaseUrl, lock, retryMs: heartbeatMs, logger, name, onGain, onLose });
      leaders.push(held);
      return held;
    },

    /** Whether this relay holds any leader lock now, for /metrics' team leadership gauge. */
    leading(): boolean {
      return leaders.some((l) => l.role() === 'leader');
    },

    /** A clean stop: the heartbeat says so, so another relay adopts this one's incidents at once. */
    async stop(opts: { handOver?: boolean } = {}): Promise<void> {
      stopped = true;
      if (heartbeatTimer) clearTimeout(heartbeatTimer);
      if (noticeTimer) clearTimeout(noticeTimer);
      for (const l of leaders.splice(0)) await l.stop();
      const l = listener;
      listener = undefined;
      await l?.end().catch(() => {});
      if (opts.handOver !== false) await repo.markStopped(me).catch(() => {});
    },
  };
}

export type TeamCoordinator = ReturnType<typeof createTeamCoordinator>;

/** A relay's identity on the database: new for every start, so a restarted relay adopts its own earlier incidents. */
export const newRelayId = () => randomUUID();
