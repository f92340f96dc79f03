import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { ConfigError } from '../../config/load';
import { createPool, databaseErrorMessage, describeDatabaseUrl, migrate } from '../store-pg/database';
import { createPgStore, type SharedIncidentStore } from '../store-pg/pg-store';
import { createTeamCoordinator, newRelayId, type TeamCoordinator } from './coordinator';
import { teamRepository } from '../store-pg/team-repository';
import { createDecisionSeal } from './decision-seal';

/**
 * Opens the team relay's database: connects, applies migrations, loads the store and makes the
 * coordinator (not yet started: the relay starts it once it listens). Fails in words when the
 * database cannot be reached at start: a relay that cannot keep alerts must not accept them.
 */
export async function openTeamStore(opts: {
  url: string;
  retention: number;
  leaseMs: number;
  logger: Logger;
  /** TEAM_DECISION_KEY (readDecisionKey): the relays' key for decision and confirm rows. */
  decisionKey: string;
  relayId?: string;
  name?: string;
  heartbeatMs?: number;
  lockWaitMs?: number;
  queryTimeoutMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}): Promise<{ store: SharedIncidentStore; coordinator: TeamCoordinator }> {
  const logger = opts.logger.child({ component: 'team' });
  const seal = createDecisionSeal(opts.decisionKey);
  const pool = createPool({ url: opts.url, logger, ...(opts.queryTimeoutMs ? { queryTimeoutMs: opts.queryTimeoutMs } : {}) });
  const relayId = opts.relayId ?? newRelayId();
  const name = opts.name ?? `${hostname()}:${process.pid}`;
  try {
    await migrate(pool, logger);
    // Two relays under one id would both act as the owner of its incidents: a live one keeps it.
    const holder = await teamRepository(pool).claimRelayId(relayId, name, opts.leaseMs / 1000);
    if (holder) {
      throw new ConfigError([
        `RELAY_ID: ${relayId} is in use by a live relay (${holder.name}, last seen ${holder.heartbeat_at.toISOString()}, ${Math.round(holder.age_s)} s ago). ` +
          `Give this relay another RELAY_ID, or stop that one: a relay silent for RELAY_LEASE_MS (${opts.leaseMs} ms) or stopped is taken over.`,
      ]);
    }
    const store = await createPgStore({ pool, relayId, retention: opts.retention, logger, ...(opts.retryBaseMs ? { retryBaseMs: opts.retryBaseMs } : {}), ...(opts.retryMaxMs ? { retryMaxMs: opts.retryMaxMs } : {}) });
    const coordinator = createTeamCoordinator({ store, databaseUrl: opts.url, leaseMs: opts.leaseMs, logger, seal, name, ...(opts.heartbeatMs ? { heartbeatMs: opts.heartbeatMs } : {}), ...(opts.lockWaitMs ? { lockWaitMs: opts.lockWaitMs } : {}) });
    store.probe = async () => {
      const started = process.hrtime.bigint();
      try {
        const team = await teamRepository(pool).teamHealth(opts.leaseMs / 1000);
        const health = store.health();
        return { ...health, url: describeDatabaseUrl(opts.url), latency_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10, schema_version: team.version, live_relays: team.live };
      } catch (error) {
        return { ...store.health(), ok: false, url: describeDatabaseUrl(opts.url), error: databaseErrorMessage(error) };
      }
    };
    logger.info({ database: describeDatabaseUrl(opts.url), relay_id: store.relayId, id_tag: store.idTag }, 'team relay: incidents in PostgreSQL');
    return { store, coordinator };
  } catch (error) {
    await pool.end().catch(() => {});
    if (error instanceof ConfigError) throw error;
    throw new Error(`the team database at ${describeDatabaseUrl(opts.url)} could not be opened: ${databaseErrorMessage(error)}`);
  }
}
