import type { Logger } from 'pino';
import { createPool, databaseErrorMessage, describeDatabaseUrl, migrate } from '../store-pg/database';
import { createPgStore, type SharedIncidentStore } from '../store-pg/pg-store';
import { createTeamCoordinator, newRelayId, type TeamCoordinator } from './coordinator';
import { teamRepository } from '../store-pg/team-repository';

/**
 * Opens the team relay's database: connects, applies migrations, loads the store and makes the
 * coordinator (not yet started: the relay starts it once it listens). Fails in words when the
 * database cannot be reached at start: a relay that cannot keep alerts must not accept them.
 */
export async function openTeamStore(opts: { url: string; retention: number; leaseMs: number; logger: Logger; relayId?: string; name?: string; heartbeatMs?: number; lockWaitMs?: number; queryTimeoutMs?: number; retryBaseMs?: number; retryMaxMs?: number }): Promise<{ store: SharedIncidentStore; coordinator: TeamCoordinator }> {
  const logger = opts.logger.child({ component: 'team' });
  const pool = createPool({ url: opts.url, logger, ...(opts.queryTimeoutMs ? { queryTimeoutMs: opts.queryTimeoutMs } : {}) });
  try {
    await migrate(pool, logger);
    const store = await createPgStore({ pool, relayId: opts.relayId ?? newRelayId(), retention: opts.retention, logger, ...(opts.retryBaseMs ? { retryBaseMs: opts.retryBaseMs } : {}), ...(opts.retryMaxMs ? { retryMaxMs: opts.retryMaxMs } : {}) });
    const coordinator = createTeamCoordinator({ store, databaseUrl: opts.url, leaseMs: opts.leaseMs, logger, ...(opts.name ? { name: opts.name } : {}), ...(opts.heartbeatMs ? { heartbeatMs: opts.heartbeatMs } : {}), ...(opts.lockWaitMs ? { lockWaitMs: opts.lockWaitMs } : {}) });
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
    throw new Error(`the team database at ${describeDatabaseUrl(opts.url)} could not be opened: ${databaseErrorMessage(error)}`);
  }
}
