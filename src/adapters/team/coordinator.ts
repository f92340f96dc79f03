import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { jitteredBackoff } from '../../core/backoff';
import { databaseErrorMessage } from '../store-pg/database';
import type { DecisionSeal } from './decision-seal';
import { createChangeListener, type HumanActionKind } from './change-listener';
import { createHeartbeat, type Adoption } from './heartbeat';
import { holdLeaderLock, type LeaderLock } from './leader-lock';
import { createNewIncidentLock } from './new-incident-lock';
import { type RemoteChange, type SharedIncidentStore } from '../store-pg/pg-store';
import { teamRepository } from '../store-pg/team-repository';

/** Advisory-lock keys (any fixed numbers, one per purpose; the new-incident lock's is in new-incident-lock.ts). */

export type { HumanActionKind } from './change-listener';
export type { Adoption } from './heartbeat';
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
  const changeHandlers = new Set<(changes: RemoteChange[]) => void>();
  const adoptionHandlers = new Set<(adopted: Adoption[]) => void>();
  const decisionHandlers = new Set<(incidentId: string, key: string, kind: HumanActionKind) => Promise<void>>();
  const beatHandlers = new Set<() => Promise<void>>();
  const leaders: LeaderLock[] = [];
  const emit = (changes: RemoteChange[]) => {
    if (changes.length) for (const h of changeHandlers) h(changes);
  };
  const onHumanAction = (incidentId: string, key: string, kind: HumanActionKind) => {
    for (const h of decisionHandlers) h(incidentId, key, kind).catch((error: unknown) => logger.error({ err_message: databaseErrorMessage(error) }, 'a decision from another relay could not be applied'));
  };
  const listener = createChangeListener({ store, databaseUrl: opts.databaseUrl, repo, logger, emit, onHumanAction, reconnectDelay: jitteredBackoff({ baseMs: 250, maxMs: 5_000 }) });
  const heartbeat = createHeartbeat({ store, repo, name, leaseMs: opts.leaseMs, heartbeatMs, logger, emit, tasks: beatHandlers, onAdopted: (adopted) => {
    for (const h of adoptionHandlers) h(adopted);
  } });

  const newIncidentLock = createNewIncidentLock({ pool, store, emit, lockWaitMs: opts.lockWaitMs ?? 10_000 });

  return {
    relayId: me,
    name,
    async start(): Promise<void> {
      await heartbeat.start();
      await listener.start();
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
      heartbeat.stop();
      for (const l of leaders.splice(0)) await l.stop();
      await listener.stop();
      if (opts.handOver !== false) await repo.markStopped(me).catch(() => {});
    },
  };
}

export type TeamCoordinator = ReturnType<typeof createTeamCoordinator>;

/** A relay's identity on the database: new for every start, so a restarted relay adopts its own earlier incidents. */
export const newRelayId = () => randomUUID();
